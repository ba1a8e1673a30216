/** A fact that happened to an aggregate, recorded by it and saved with the change. */
export interface DomainEvent<T extends string = string, D extends object = object> {
  readonly id: string;
  readonly type: T;
  /** The aggregate the event is about; events of one aggregate stay in order. */
  readonly aggregateId: string;
  readonly occurredAt: Date;
  readonly data: D;
}

export abstract class AggregateRoot {
  private domainEvents: DomainEvent[] = [];

  protected record(event: DomainEvent): void {
    this.domainEvents.push(event);
  }

  pullDomainEvents(): DomainEvent[] {
    const events = this.domainEvents;
    this.domainEvents = [];
    return events;
  }
}
