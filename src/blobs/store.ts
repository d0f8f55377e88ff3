/**
 * Object storage for large immutable artefacts (full-fidelity roast curves, rendered reports):
 * the local filesystem by default, S3-compatible storage when configured.
 */
export interface BlobStore {
  /** Writes the object and resolves once it is durably stored (a rewrite of the same key replaces it). */
  put(key: string, body: Buffer | string, contentType: string): Promise<void>;
  /** The object, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** Releases connections; called once when the service stops. */
  close(): Promise<void>;
}
