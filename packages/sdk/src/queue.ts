/**
 * A bounded FIFO of rows waiting for the server's acknowledgement. Rows get increasing ids, so an ack
 * removes exactly what was sent even if the oldest rows overflowed meanwhile.
 */
export class AckQueue<T> {
  private rows: { id: number; item: T }[] = [];
  private nextId = 0;
  private droppedTotal = 0;

  constructor(private readonly capacity: number) {}

  push(item: T): void {
    this.rows.push({ id: this.nextId++, item });
    if (this.rows.length > this.capacity) {
      const excess = this.rows.length - this.capacity;
      this.rows.splice(0, excess);
      this.droppedTotal += excess;
    }
  }

  /** The oldest rows, up to `max`, and the id to pass to `ackThrough` once they are stored. */
  peek(max: number): { items: T[]; lastId: number } {
    const slice = this.rows.slice(0, max);
    return { items: slice.map((r) => r.item), lastId: slice.at(-1)?.id ?? -1 };
  }

  ackThrough(lastId: number): void {
    let k = 0;
    while (k < this.rows.length && (this.rows[k]?.id ?? Infinity) <= lastId) k++;
    this.rows.splice(0, k);
  }

  get size(): number {
    return this.rows.length;
  }

  /** Rows the server acknowledged as stored. */
  get acknowledged(): number {
    return this.nextId - this.rows.length - this.droppedTotal;
  }

  /** Rows lost to overflow while the server was unreachable for too long. */
  get dropped(): number {
    return this.droppedTotal;
  }
}
