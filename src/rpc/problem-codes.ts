/**
 * Every stable problem `code` the service answers, with its HTTP status and what it means. Clients branch
 * on these codes, so they are API: the OpenAPI document lists, per operation, the codes that operation
 * declares, and when the suite runs the dispatcher refuses a handler's problem whose code the operation
 * did not declare (see `checkContract` in dispatch.ts), so the list cannot drift from what is served.
 */
export const PROBLEM_CODES = {
  // The pipeline's own answers: possible on every operation, documented once.
  malformed_json: { status: 400, meaning: 'The body (or the `input` query parameter) is not valid JSON.' },
  invalid_input: { status: 400, meaning: 'The input breaks its schema; `errors` names every offending field with its path.' },
  invalid_cursor: { status: 400, meaning: '`page.cursor` is not a cursor this list returned.' },
  invalid_idempotency_key: { status: 400, meaning: 'Idempotency-Key is not 1 to 255 characters.' },
  unauthenticated: { status: 401, meaning: 'No credential, or one that is unknown, expired or revoked.' },
  permission_denied: { status: 403, meaning: 'The credential lacks the permission the operation needs (named in `detail`).' },
  module_not_enabled: { status: 403, meaning: "The operation's module is not on the organization's plan." },
  organization_mismatch: { status: 403, meaning: 'X-Service-Org names another organization than the credential is bound to.' },
  bridge_token_not_allowed: { status: 403, meaning: 'A machine bridge token may only post telemetry.' },
  organization_required: { status: 400, meaning: 'A user credential was sent without X-Service-Org naming the organization to act in.' },
  organization_not_found: { status: 404, meaning: 'X-Service-Org names an organization the user is not a member of (or none that exists: the two answer alike).' },
  unknown_operation: { status: 404, meaning: 'There is no operation of that name.' },
  method_not_allowed: { status: 405, meaning: 'GET on a POST-only operation (see `Allow`).' },
  idempotency_key_in_flight: { status: 409, meaning: 'A request with this Idempotency-Key is still being processed.' },
  body_too_large: { status: 413, meaning: 'The body exceeds 1 MiB.' },
  unsupported_media_type: { status: 415, meaning: 'The body is not application/json.' },
  idempotency_key_reused: { status: 422, meaning: 'This Idempotency-Key was used with a different body.' },
  rate_limited: { status: 429, meaning: 'Over the credential’s budget; retry after `Retry-After` seconds.' },
  bad_request: { status: 400, meaning: 'A request the HTTP server refused before any route read it (a malformed URL or header).' },
  route_not_found: { status: 404, meaning: 'No route answers this method and path.' },
  internal_error: { status: 500, meaning: 'Something went wrong on the service’s side; the request changed nothing.' },
  contract_violation: { status: 500, meaning: 'Only while the suite runs: an answer, event or problem broke its declaration.' },

  // Answers of the surfaces beside /rpc/v1/ (src/http/surface.ts).
  bridge_token_required: { status: 403, meaning: 'This is posted with the machine’s own token (`fcb_…`), not an API key or another credential.' },
  wrong_machine: { status: 403, meaning: 'The machine token belongs to another machine than the one the request names or roasts on.' },
  too_many_streams: { status: 429, meaning: 'Too many open streams for this credential or organization; close one first (`Retry-After`).' },
  invalid_last_event_id: { status: 400, meaning: 'Last-Event-ID (or `lastEventId`) is not the id of a message of this stream.' },
  console_not_built: { status: 503, meaning: 'The web console has not been built (`npm run build:web`).' },

  // Answers an operation declares in its `errors`.
  not_found: { status: 404, meaning: 'A record named in the input does not exist in this organization (another organization’s id answers the same).' },
  no_bill_of_materials: { status: 404, meaning: 'The product has no published bill of materials.' },
  oauth_client_revoked: { status: 409, meaning: 'The OAuth client is revoked already; a revoked client stays revoked.' },
  duplicate: { status: 409, meaning: 'Another record in this organization already has this code, SKU or key (`errors` names the field).' },
  concurrent_update: { status: 409, meaning: 'A concurrent request changed the same records; retry the request.' },
  location_archived: { status: 409, meaning: 'The location is archived: history, refusing changes.' },
  insufficient_stock: { status: 409, meaning: 'Not enough unreserved stock for the change.' },
  insufficient_reservation: { status: 409, meaning: 'Less is reserved than the change releases or consumes.' },
  negative_balance: { status: 409, meaning: 'The change would take a balance below zero.' },
  lot_quarantined: { status: 409, meaning: 'The lot is quarantined: it cannot be reserved, split, merged or roasted.' },
  lot_not_quarantined: { status: 409, meaning: 'The lot is not in quarantine, so there is nothing to release.' },
  cupping_session_finalized: { status: 409, meaning: 'The cupping session is finalized: its scores and results are closed.' },
  lot_reserved: { status: 409, meaning: 'The lot holds reserved coffee the change would touch.' },
  lot_empty: { status: 409, meaning: 'The lot holds nothing to act on.' },
  stock_spread_across_locations: { status: 409, meaning: 'No single location holds the weight; transfer the coffee to one location first.' },
  machine_inactive: { status: 409, meaning: 'The machine is not active.' },
  machine_cap_reached: { status: 402, meaning: "The plan's machine cap is reached." },
  batch_not_live: { status: 409, meaning: 'The roast batch is not live (already completed or aborted).' },
  live_session_full: { status: 409, meaning: 'The batch’s live session holds the most samples and events a session may; the post was not stored.' },
  batch_not_completed: { status: 409, meaning: 'The roast batch is not completed (live or aborted), so it has no stored curve.' },
  no_telemetry: { status: 409, meaning: 'The batch has no telemetry to act on.' },
  profile_machine_mismatch: { status: 409, meaning: 'The profile belongs to another machine.' },
  state_mismatch: { status: 409, meaning: 'The record is not in the state the change expects.' },
  invalid_state_transition: { status: 409, meaning: 'The state change is not allowed from the current state (`detail` names both).' },
  schedule_already_released: { status: 409, meaning: 'The schedule was released and can no longer change.' },
  not_allocated: { status: 409, meaning: 'The order line holds no allocation to act on.' },
  not_in_chain: { status: 409, meaning: 'The record is not part of the chain asked about.' },
  report_not_ready: { status: 409, meaning: 'The report is not rendered (yet): poll getReport until its status is ready; a failed report says why.' },
  link_invalid: { status: 403, meaning: 'The signed link was altered or is not one this service issued.' },
  link_expired: { status: 410, meaning: 'The signed link has expired; ask for a new one.' },
  exceeds_open_weight: { status: 409, meaning: 'The weight is more than the contract still has open (not yet booked on a shipment).' },
  shipment_already_received: { status: 409, meaning: 'The shipment was already received; receiving it again would create its lots twice.' },
  milestone_already_completed: { status: 409, meaning: 'The milestone was already completed; its completion time is stamped once.' },
  sample_not_approved: { status: 409, meaning: 'No approved pre-shipment sample of the contract: a sample_approval milestone cannot be completed.' },
  sample_already_transferred: { status: 409, meaning: 'The sample was already transferred to inventory as a green lot.' },
  location_not_cafe: { status: 409, meaning: 'The location is not a cafe location (kind `cafe`), so no cafe site can be placed there.' },
  not_an_espresso_machine: { status: 409, meaning: 'The bar machine is not an espresso machine, so it pulls no shots.' },
  webhook_url_refused: { status: 400, meaning: 'The webhook URL is not https, or names or resolves to a private, loopback, link-local or cloud metadata address (`errors` names `url`).' },
  endpoint_not_active: { status: 409, meaning: 'The webhook endpoint is disabled or deleted; re-enable it (updateEndpoint status active) first.' },
  unreadable_roast_log: { status: 400, meaning: 'The uploaded roast log could not be read in the format given.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/** Codes any operation can answer without declaring them: the request pipeline's own. */
export const PIPELINE_CODES: readonly ProblemCode[] = [
  'malformed_json',
  'invalid_input',
  'invalid_idempotency_key',
  'unauthenticated',
  'permission_denied',
  'module_not_enabled',
  'organization_mismatch',
  'bridge_token_not_allowed',
  'organization_required',
  'organization_not_found',
  'unknown_operation',
  'method_not_allowed',
  'idempotency_key_in_flight',
  'body_too_large',
  'unsupported_media_type',
  'idempotency_key_reused',
  'rate_limited',
];

export const isProblemCode = (code: string): code is ProblemCode => Object.hasOwn(PROBLEM_CODES, code);
