import type { OperationExamples } from '../../rpc/examples.js';

const ORG = 'org_01m8ge1k2v9t4x7z3b5d8f0h2j';
const KEY = 'key_01m8gh3p6r9t2w5y8a1c4e7g0j';
const USER = 'usr_01m8gh7q2s5v8x1z4b7d0f3h6k';

/** A request and its answer for each settings operation, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'identity.createApiKey': {
    input: { role: 'roaster', scopes: ['production.*', 'inventory.green.read'], label: 'Roastery floor tablet' },
    output: {
      id: KEY,
      apiKey: 'fck_Zq8mW3kT7vN2pR5xL9cB4hJ6dF1sA0eG',
      role: 'roaster',
      scopes: ['production.*', 'inventory.green.read'],
      label: 'Roastery floor tablet',
      createdAt: '2026-11-28T09:40:12.315Z',
      revokedAt: null,
    },
  },
  'identity.listApiKeys': {
    input: { filter: { includeRevoked: true }, page: { limit: 2 } },
    output: {
      items: [
        { id: 'key_01m8ge1k3a4b6c8d0e2f4g6h8j', role: 'owner', scopes: [], label: 'owner key', createdAt: '2026-11-25T08:00:00.000Z', revokedAt: null },
        {
          id: KEY,
          role: 'roaster',
          scopes: ['production.*', 'inventory.green.read'],
          label: 'Roastery floor tablet',
          createdAt: '2026-11-28T09:40:12.315Z',
          revokedAt: '2026-11-28T10:02:44.901Z',
        },
      ],
      nextCursor: null,
    },
  },
  'identity.revokeApiKey': {
    input: { id: KEY },
    output: {
      id: KEY,
      role: 'roaster',
      scopes: ['production.*', 'inventory.green.read'],
      label: 'Roastery floor tablet',
      createdAt: '2026-11-28T09:40:12.315Z',
      revokedAt: '2026-11-28T10:02:44.901Z',
    },
  },
  'identity.listMembers': {
    input: { page: { limit: 50 } },
    output: {
      items: [
        { userId: 'usr_01m8ge2a4c6e8g0j2m4p6r8t0v', email: 'owner@bluehillroastery.example', role: 'owner', hasPassword: true, memberSince: '2026-11-25T08:01:30.000Z' },
        { userId: USER, email: 'head.roaster@bluehillroastery.example', role: 'roaster', hasPassword: false, memberSince: '2026-11-28T09:45:03.120Z' },
      ],
      nextCursor: null,
    },
  },
  'identity.addMember': {
    input: { email: 'head.roaster@bluehillroastery.example', role: 'roaster' },
    output: {
      userId: USER,
      email: 'head.roaster@bluehillroastery.example',
      role: 'roaster',
      hasPassword: false,
      memberSince: '2026-11-28T09:45:03.120Z',
      loginToken: 'fcl_Hn4tY8wQ2mK6rV0xB3cZ7jP5dL9sF1aE',
    },
  },
  'identity.setMemberRole': {
    input: { userId: USER, role: 'admin' },
    output: { userId: USER, email: 'head.roaster@bluehillroastery.example', role: 'admin', hasPassword: true, memberSince: '2026-11-28T09:45:03.120Z' },
  },
  'identity.removeMember': {
    input: { userId: USER },
    output: { userId: USER, email: 'head.roaster@bluehillroastery.example', role: 'admin', hasPassword: true, memberSince: '2026-11-28T09:45:03.120Z' },
  },
  'identity.getOrganization': {
    input: {},
    output: { id: ORG, name: 'Blue Hill Roastery', plan: 'pro', timeZone: 'Europe/Berlin', createdAt: '2026-11-25T08:00:00.000Z', deletion: null },
  },
  'identity.renameOrganization': {
    input: { name: 'Blue Hill Coffee Roasters' },
    output: { id: ORG, name: 'Blue Hill Coffee Roasters', plan: 'pro', timeZone: 'Europe/Berlin', createdAt: '2026-11-25T08:00:00.000Z', deletion: null },
  },
  'identity.scheduleOrganizationDeletion': {
    input: { confirm: 'Blue Hill Coffee Roasters' },
    output: {
      id: ORG,
      name: 'Blue Hill Coffee Roasters',
      plan: 'pro',
      timeZone: 'Europe/Berlin',
      createdAt: '2026-11-25T08:00:00.000Z',
      deletion: { scheduledAt: '2026-11-28T13:00:00.000Z', purgeAfter: '2026-12-28T13:00:00.000Z' },
    },
  },
  'identity.cancelOrganizationDeletion': {
    input: {},
    output: { id: ORG, name: 'Blue Hill Coffee Roasters', plan: 'pro', timeZone: 'Europe/Berlin', createdAt: '2026-11-25T08:00:00.000Z', deletion: null },
  },
  'identity.exportOrganization': {
    input: {},
    output: {
      id: 'oex_01jq3k8m7v5x2n4p6r8t0w2y4e',
      status: 'queued',
      failureReason: null,
      sizeBytes: null,
      contents: null,
      createdAt: '2026-11-28T14:20:00.000Z',
      startedAt: null,
      completedAt: null,
      download: null,
    },
  },
  'identity.getOrganizationExport': {
    input: { id: 'oex_01jq3k8m7v5x2n4p6r8t0w2y4e', expiresInSeconds: 900 },
    output: {
      id: 'oex_01jq3k8m7v5x2n4p6r8t0w2y4e',
      status: 'ready',
      failureReason: null,
      sizeBytes: 482113,
      contents: { tables: { green_lots: 42, green_lot_ledger: 1318, roast_batches: 210, reports: 3 }, blobs: 57 },
      createdAt: '2026-11-28T14:20:00.000Z',
      startedAt: '2026-11-28T14:20:01.000Z',
      completedAt: '2026-11-28T14:20:04.000Z',
      download: {
        url: `/files/v1/organization-exports/oex_01jq3k8m7v5x2n4p6r8t0w2y4e.tgz?org=${ORG}&expires=1795000000&v=1&sig=q8Zt3yQm0b6Jx1u9R2kVhP4sW7dLcN5eGfA0oI3rTyU`,
        signedBy: 'service',
        expiresAt: '2026-11-28T14:35:04.000Z',
      },
    },
  },
};
