/** What a consumer has handled already, by event id, so a redelivered event changes nothing. */
export interface ProcessedEventStore {
  has(consumer: string, eventId: string): Promise<boolean>;
  record(consumer: string, eventId: string, at: Date): Promise<void>;
}
