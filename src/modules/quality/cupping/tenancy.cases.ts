import type { TenancyCase } from '../../../testing/tenancy.js';
import { makeGreenLot } from '../../inventory/green/testing.js';
import { createSession, form, score } from './testing.js';

export const cases: TenancyCase[] = [
  {
    // Another organization's green lot cannot be put on this organization's table: 404 as for no lot.
    operation: 'quality.cupping.createCuppingSession',
    expect: 'not_found',
    async arrange(owner) {
      const lotId = await makeGreenLot(owner);
      return { input: { sessionNumber: 'STOLEN-1', name: 'Stolen', samples: [{ kind: 'green_lot', id: lotId }] }, secretIds: [lotId] };
    },
  },
  {
    operation: 'quality.cupping.submitCuppingScore',
    expect: 'not_found',
    async arrange(owner) {
      const created = await createSession(owner, { samples: [{ kind: 'outside', name: 'Guest coffee' }] });
      const sessionSampleId = created.samples[0].sessionSampleId;
      return { input: { sessionSampleId, cupperName: 'Intruder', scores: form() }, secretIds: [sessionSampleId] };
    },
  },
  {
    operation: 'quality.cupping.getCuppingTable',
    expect: 'not_found',
    async arrange(owner) {
      const created = await createSession(owner, { samples: [{ kind: 'outside', name: 'Guest coffee' }] });
      await score(owner, { sessionSampleId: created.samples[0].sessionSampleId, cupperName: 'Ana' });
      return { input: { sessionId: created.session.id }, secretIds: [created.session.id] };
    },
  },
  {
    operation: 'quality.cupping.finalizeCuppingSession',
    expect: 'not_found',
    async arrange(owner) {
      const created = await createSession(owner, { samples: [{ kind: 'outside', name: 'Guest coffee' }] });
      await score(owner, { sessionSampleId: created.samples[0].sessionSampleId, cupperName: 'Ana' });
      return { input: { sessionId: created.session.id }, secretIds: [created.session.id] };
    },
  },
  {
    operation: 'quality.cupping.listCuppingSessions',
    expect: 'invisible',
    async arrange(owner) {
      const created = await createSession(owner, { sessionNumber: 'SECRET-TABLE', samples: [{ kind: 'outside', name: 'Guest coffee' }] });
      return { input: { filter: { q: 'SECRET-TABLE' } }, secretIds: [created.session.id] };
    },
  },
];
