/** A recording that cannot be read: what is wrong and where (a line, or a field's path), for the uploader. */
export class RecordingError extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(`${where}: ${message}`);
  }
}
