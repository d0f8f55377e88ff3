import { z } from 'zod';
import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { CuppingScore, CuppingSession, FinalizedCuppingSession } from './schemas.js';

/** The session without its coffees: the organizer's key (which coffee is behind which code) is not broadcast. */
export const sessionCreated = defineEvent('quality.cupping.session_created', 'A cupping session was set up with its coffees and blind codes.', out({ session: CuppingSession }));
export const scoreSubmitted = defineEvent(
  'quality.cupping.score_submitted',
  'A cupper submitted (or replaced) a score form for a coffee, named by its blind code.',
  out({ score: CuppingScore, replaced: z.boolean() }),
);
export const sessionFinalized = defineEvent(
  'quality.cupping.finalized',
  'A cupping session was finalized: each coffee’s mean and spread published, blind identities revealed.',
  FinalizedCuppingSession,
);
