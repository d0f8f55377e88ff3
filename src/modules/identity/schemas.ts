import { z } from 'zod';
import { ROLES } from '../../auth/permissions.js';
import { id, page, strict } from '../../rpc/schemas.js';
import { idOut, out, timeOut } from '../../rpc/outputs.js';

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
