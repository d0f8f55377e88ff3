import { z } from 'zod';
import { ROLES } from '../../auth/permissions.js';
import { PLANS } from '../../auth/plans.js';
import { id, page, strict } from '../../rpc/schemas.js';
import { idOut, out, timeOut } from '../../rpc/outputs.js';
import { linkLifetime } from '../../http/signed-files.js';

const role = z.enum(ROLES);
const scopes = z.array(z.string().min(1).max(100)).max(50);

export const CreateOAuthClient = strict({
  role,
  scopes: scopes.optional(),
  label: z.string().trim().min(1).max(200).optional(),
});

export const ListOAuthClients = strict({
  filter: strict({ includeRevoked: z.boolean().optional() }).default({}),
  page,
});

export const ById = strict({ id: id('OAuth client') });

export const OAuthClient = out({
  clientId: idOut,
  role,
  /** Empty: all of the role's permissions. */
  scopes: z.array(z.string()),
  label: z.string().nullable(),
  createdAt: timeOut,
  revokedAt: timeOut.nullable(),
}).meta({ id: 'OAuthClient' });

export const IssuedOAuthClient = out({
  clientId: idOut,
  clientSecret: z.string().describe('shown once; only a hash is stored'),
  role,
  scopes: z.array(z.string()),
  label: z.string().nullable(),
  createdAt: timeOut,
  revokedAt: timeOut.nullable(),
}).meta({ id: 'IssuedOAuthClient' });

// ---------------------------------------------------------------------------------------------------
// The organization's settings: API keys, members, its name (the identity.* extensions).

export const CreateApiKey = strict({
  role,
  /** Permission names or patterns (`inventory.*`) narrowing the role; empty or absent: the whole role. */
  scopes: scopes.optional(),
  label: z.string().trim().min(1).max(200).optional(),
});

export const ListApiKeys = strict({
  filter: strict({ includeRevoked: z.boolean().optional() }).default({}),
  page,
});

export const ApiKeyId = strict({ id: id('API key') });

export const ApiKey = out({
  id: idOut,
  role,
  /** Empty: all of the role's permissions. */
  scopes: z.array(z.string()),
  label: z.string().nullable(),
  createdAt: timeOut,
  revokedAt: timeOut.nullable(),
}).meta({ id: 'ApiKey' });

export const IssuedApiKey = out({
  id: idOut,
  apiKey: z.string().describe('the secret (`fck_…`), shown once; only its SHA-256 is stored'),
  role,
  scopes: z.array(z.string()),
  label: z.string().nullable(),
  createdAt: timeOut,
  revokedAt: timeOut.nullable(),
}).meta({ id: 'IssuedApiKey' });

export const ListMembers = strict({ page });

export const AddMember = strict({
  email: z.string().trim().min(3).max(320),
  role,
});

export const SetMemberRole = strict({ userId: id('userId'), role });
export const MemberId = strict({ userId: id('userId') });

export const Member = out({
  userId: idOut,
  email: z.string(),
  role,
  /** false: the user has no password yet, only a one-time login link. */
  hasPassword: z.boolean(),
  memberSince: timeOut,
}).meta({ id: 'Member' });

export const AddedMember = out({
  userId: idOut,
  email: z.string(),
  role,
  hasPassword: z.boolean(),
  memberSince: timeOut,
  /**
   * For a user created by this invitation: a one-time login token (`fcl_…`, shown once, good for 24 hours),
   * opened as `<service>/app/#loginToken=<token>`. Null when the email already had a user, who signs in as before.
   */
  loginToken: z.string().nullable(),
}).meta({ id: 'AddedMember' });

export const GetOrganization = strict({});
export const RenameOrganization = strict({ name: z.string().trim().min(1).max(200) });

export const Organization = out({
  id: idOut,
  name: z.string(),
  plan: z.enum(PLANS),
  /** The IANA zone its documents print times in; null: UTC. */
  timeZone: z.string().nullable(),
  createdAt: timeOut,
  /** Null unless an owner scheduled the organization's deletion (identity.scheduleOrganizationDeletion). */
  deletion: out({
    /** When it was scheduled. */
    scheduledAt: timeOut,
    /** The end of the grace period: from then on the purge job deletes everything the organization owns. */
    purgeAfter: timeOut,
  })
    .meta({ id: 'OrganizationDeletion' })
    .nullable(),
}).meta({ id: 'Organization' });

/** The organization's id or its exact name, typed by the owner to confirm the deletion. */
export const ScheduleOrganizationDeletion = strict({ confirm: z.string().min(1).max(200) });
export const CancelOrganizationDeletion = strict({});

export const ExportOrganization = strict({});
export const GetOrganizationExport = strict({
  id: id(),
  /** How long the download link works once the archive is ready (seconds; default 900, at most 7 days). */
  expiresInSeconds: linkLifetime,
});

export const OrganizationExport = out({
  id: idOut,
  /** queued, building, ready (download it) or failed (failureReason says why; ask for a new export). */
  status: z.enum(['queued', 'building', 'ready', 'failed']),
  failureReason: z.string().nullable(),
  /** The archive's size once ready. */
  sizeBytes: z.number().int().nullable(),
  /** Once ready: the rows of each table and the number of blobs the archive holds. */
  contents: out({ tables: z.record(z.string(), z.number().int()), blobs: z.number().int() }).meta({ id: 'OrganizationExportContents' }).nullable(),
  createdAt: timeOut,
  startedAt: timeOut.nullable(),
  completedAt: timeOut.nullable(),
  /** Once ready (and only in getOrganizationExport): a time-limited link to the .tar.gz that works without a credential. */
  download: out({
    url: z.string(),
    /** `service`: the service's own signed link, relative to its address; `s3`: an absolute S3 presigned URL. */
    signedBy: z.enum(['service', 's3']),
    expiresAt: timeOut,
  })
    .meta({ id: 'OrganizationExportDownload' })
    .nullable(),
}).meta({ id: 'OrganizationExport' });
