/**
 * The refresh token that follows a presented one, derived from it with a key of the service's: the same every time
 * and on every replica that holds the key, unguessable without both the presented token and the key. So an exchange
 * whose answer was lost on the way (the rotation committed, the answer never arrived) can be answered again with the
 * very successor the first answer carried, instead of a new branch of the family or a false alarm of theft.
 */
export interface SuccessorTokens {
  successorOf(presented: string): string;
}
