/**
 * Object storage for large immutable artefacts (full-fidelity roast curves, rendered reports):
 * the local filesystem by default, S3-compatible storage when configured. Every key an organization's data is
 * stored under is `<kind>/<orgId>/…` (curves/, reports/, imports/), which is how its export and its purge find
 * all of its objects.
 */
export interface BlobStore {
  /** Writes the object and resolves once it is durably stored (a rewrite of the same key replaces it). */
  put(key: string, body: Buffer | string, contentType: string): Promise<void>;
  /** The object, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /**
   * A link the storage service itself serves the object at, without any other credential, until
   * `expiresInSeconds` have passed (S3: a SigV4 presigned GET, at most 7 days). Absent for stores that
   * cannot sign (the filesystem): the service then serves the object through its own signed link.
   */
  presignedGetUrl?(key: string, options: { expiresInSeconds: number; filename: string; contentType: string }): Promise<string>;
  /**
   * Deletes every object stored for the organization (every key `<kind>/<orgId>/…`, whatever the kind);
   * answers how many were deleted. Idempotent: a second call finds none.
   */
  deleteOrganizationObjects(orgId: string): Promise<number>;
  /** The keys of every object stored for the organization (`<kind>/<orgId>/…`, whatever the kind), sorted: its export's blobs. */
  listOrganizationObjects(orgId: string): Promise<string[]>;
  /** Releases connections; called once when the service stops. */
  close(): Promise<void>;
}
