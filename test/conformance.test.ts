import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { REGISTRY } from '../src/modules/index.js';

const { operations, byName: registry } = REGISTRY;
import { inputJsonSchema } from '../src/rpc/openapi.js';
import { PERMISSIONS, ROLE_PERMISSIONS, ROLES } from '../src/auth/permissions.js';
import { FEATURES } from '../src/auth/plans.js';

interface SpecField {
  name: string;
  required: boolean;
  type?: string;
  enum?: string[];
}
interface SpecOperation {
  operation: string;
  get: boolean;
  permission: string;
  module: string;
  input: SpecField[];
}

const spec: SpecOperation[] = JSON.parse(readFileSync(new URL('../../shared/spec/operations.json', import.meta.url), 'utf8')).operations;

/**
 * Values a field accepts beyond the specification's list, each a documented synonym (DESIGN.md). The
 * location kind the specification spells `the service` is answered and documented as `roastery`; both are accepted.
 */
const SYNONYMS: Record<string, string[]> = { 'catalog.location.createLocation.kind': ['roastery'], 'catalog.location.updateLocation.kind': ['roastery'] };

/**
 * Optional input fields added beyond the specification, each documented in the operation's summary.
 * Additions are backward compatible; a missing or renamed specified field never is.
 */
const EXTENSIONS: Record<string, string[]> = {
  'production.roast.importLoggerRoast': ['greenLotId', 'chargeWeightKg', 'dropWeightKg', 'locationId', 'profileId'],
  'production.profile.createProfile': ['shelfLifeDays'],
  'catalog.machine.registerMachine': ['burnerRatingKw', 'fuel'],
  'catalog.machine.updateMachine': ['burnerRatingKw', 'fuel'],
  'cafe.createSite': ['shotTarget'],
  // The feed's resume position (the specification names no paging for it).
  'webhooks.listEvents': ['cursor'],
  'quality.cupping.getCuppingTable': ['cupperName'],
  // Expired roasted lots are left out of an allocation unless asked for.
  'orders.allocateOrder': ['includeExpired'],
  // The completed batch whose curve the roast follows (production.roast.setRoastReference changes it later).
  'production.roast.startRoastBatch': ['referenceBatchId'],
  // The SCA form's defects (cups and intensity), from which defectsPenalty is computed.
  'quality.cupping.submitCuppingScore': ['defects'],
  // What a product is made of (a roast profile or a blend) and its roast level: order lines naming it are filled from that.
  'catalog.product.createProduct': ['profileId', 'blendId', 'roastLevel'],
  'catalog.product.updateProduct': ['profileId', 'blendId', 'roastLevel'],
};

/**
 * Operations registered beyond the specification, each in its specification namespace with the
 * namespace's permission and module, and documented in its summary. The specification names no way to
 * end a sales order, so orders adds cancelling and shipping one.
 */
const EXTRA_OPERATIONS = new Set([
  'orders.cancelOrder', 'orders.fulfillOrder', 'production.roast.abortRoastBatch', 'cafe.issueBarMachineToken',
  // The full-fidelity curve the specification says is fetched separately, and its Artisan exports.
  'production.roast.getRoastCurveLink',
  // The console marks events a machine cannot detect, and chooses the curve a batch follows.
  'production.roast.markRoastEvent', 'production.roast.setRoastReference',
  // OAuth client administration (identity), under the api module's integration permission.
  'webhooks.createOAuthClient', 'webhooks.listOAuthClients', 'webhooks.revokeOAuthClient',
  // Web shop connections (Shopify, WooCommerce), whose orders arrive by webhook.
  'orders.createShopConnection', 'orders.listShopConnections', 'orders.rotateShopSecret', 'orders.deleteShopConnection',
  // Spreadsheet imports (src/modules/imports), registered in the namespace of what they create.
  'inventory.green.checkGreenLotImport', 'inventory.green.applyGreenLotImport', 'inventory.green.getGreenLotImport',
  'catalog.party.checkPartnerImport', 'catalog.party.applyPartnerImport', 'catalog.party.getPartnerImport',
  'orders.checkCustomerImport', 'orders.applyCustomerImport', 'orders.getCustomerImport',
  'catalog.product.checkProductImport', 'catalog.product.applyProductImport', 'catalog.product.getProductImport',
  'inventory.material.checkMaterialImport', 'inventory.material.applyMaterialImport', 'inventory.material.getMaterialImport',
  'sourcing.contract.checkContractImport', 'sourcing.contract.applyContractImport', 'sourcing.contract.getContractImport',
  // Proof of origin (EU Deforestation Regulation, GS1 EPCIS): plots, origin declarations, the operator's identity, exports.
  'catalog.party.createPlot', 'catalog.party.getPlot', 'catalog.party.listPlots',
  'catalog.party.setOperatorIdentity', 'catalog.party.getOperatorIdentity',
  'inventory.green.declareOrigin', 'inventory.green.getOriginDeclaration',
  'traceability.getDueDiligenceStatement', 'traceability.exportEpcis',
]);

/**
 * Operations in the one namespace the specification does not have: the organization's settings (API keys,
 * members, its name), which it leaves to "the service console". Each is an extension under the
 * integration-settings permission only owners and admins hold, in the core module every plan has.
 */
const SETTINGS_OPERATIONS = new Set([
  'identity.createApiKey', 'identity.listApiKeys', 'identity.revokeApiKey',
  'identity.listMembers', 'identity.addMember', 'identity.setMemberRole', 'identity.removeMember',
  'identity.getOrganization', 'identity.renameOrganization',
  'identity.scheduleOrganizationDeletion', 'identity.cancelOrganizationDeletion',
  'identity.exportOrganization', 'identity.getOrganizationExport',
]);

type Schema = { type?: string | string[]; enum?: unknown[]; const?: unknown; anyOf?: Schema[]; items?: Schema; properties?: Record<string, Schema>; required?: string[] };

function enumValues(s: Schema | undefined): string[] {
  if (!s) return [];
  if (s.enum) return s.enum.map(String);
  if (s.const !== undefined) return [String(s.const)];
  if (s.anyOf) return s.anyOf.flatMap(enumValues);
  if (s.items) return enumValues(s.items);
  return [];
}

/**
 * An input that is alternatives told apart by a field (generateReport's kinds) as one object: every field of any
 * alternative (each taking what any alternative takes), required when every alternative requires it.
 */
function merged(schema: Schema & { oneOf?: { $ref?: string }[]; $defs?: Record<string, Schema> }): Schema {
  if (!schema.oneOf) return schema;
  const alternatives = schema.oneOf.map((a) => (a.$ref ? schema.$defs![a.$ref.replace('#/$defs/', '')] : (a as Schema)));
  const properties: Record<string, Schema> = {};
  for (const a of alternatives) for (const [name, p] of Object.entries(a.properties ?? {})) properties[name] = { anyOf: [...(properties[name]?.anyOf ?? []), p] };
  const required = Object.keys(properties).filter((name) => alternatives.every((a) => a.required?.includes(name)));
  return { type: 'object', properties, required };
}

function types(s: Schema): string[] {
  if (s.anyOf) return s.anyOf.flatMap(types);
  return s.type === undefined ? [] : ([] as string[]).concat(s.type);
}

test('the registry matches the specification', async (t) => {
  const specByName = new Map(spec.map((o) => [o.operation, o]));
  const unknown = operations.map((o) => o.name).filter((n) => !specByName.has(n) && !EXTRA_OPERATIONS.has(n) && !SETTINGS_OPERATIONS.has(n));
  assert.deepEqual(unknown, [], 'registered operations that the specification does not name');
  for (const op of operations.filter((o) => SETTINGS_OPERATIONS.has(o.name))) {
    assert.ok(op.name.startsWith('identity.') && op.permission === 'webhooks.write' && op.feature === 'core' && op.extension === true, `${op.name}: a settings extension (webhooks.write, core)`);
  }

  for (const op of operations.filter((o) => EXTRA_OPERATIONS.has(o.name))) {
    const namespace = op.name.slice(0, op.name.lastIndexOf('.'));
    const siblings = spec.filter((s) => s.operation.startsWith(`${namespace}.`));
    assert.ok(siblings.some((s) => s.permission === op.permission && s.module === op.feature), `${op.name}: a permission and module of ${namespace}`);
    assert.equal(op.extension, true, `${op.name}: declared as an extension, so the API documents it as one`);
  }

  for (const op of operations.filter((o) => specByName.has(o.name))) {
    await t.test(op.name, () => {
      const s = specByName.get(op.name)!;
      assert.ok(!op.extension, 'a specified operation is not an extension');
      assert.equal(op.permission, s.permission, 'permission');
      assert.equal(op.feature, s.module, 'module');
      assert.equal(op.get, s.get, 'GET flag');
      const schema = merged(inputJsonSchema(op) as Schema);
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const extensions = EXTENSIONS[op.name] ?? [];
      assert.deepEqual(Object.keys(properties).sort(), [...s.input.map((f) => f.name), ...extensions].sort(), 'input fields');
      for (const field of extensions) assert.ok(!required.has(field), `extension ${field} must be optional`);
      for (const field of s.input) {
        const property = properties[field.name];
        assert.equal(required.has(field.name), field.required, `${field.name} required`);
        if (field.enum) {
          const extra = SYNONYMS[`${op.name}.${field.name}`] ?? [];
          assert.deepEqual(enumValues(property).sort(), [...field.enum, ...extra].sort(), `${field.name} values`);
        }
        const accepted = types(property);
        if (field.type === 'integer') assert.deepEqual(accepted, ['integer'], `${field.name} is an integer`);
        if (field.type === 'boolean') assert.deepEqual(accepted, ['boolean'], `${field.name} is a boolean`);
        if (field.type?.endsWith('[]')) assert.ok(accepted.includes('array'), `${field.name} is a list`);
        if (field.type === 'object') assert.ok(accepted.includes('object'), `${field.name} is an object`);
        if (field.type === 'number') assert.ok(accepted.includes('number'), `${field.name} takes a number`);
      }
    });
  }
  const covered = operations.filter((op) => specByName.has(op.name)).length;
  console.log(`Operation coverage: ${covered}/${spec.length} of the specification registered and conforming (plus ${operations.length - covered} documented extra)`);
});

test('the permission list is exactly the specification’s, and every role is drawn from it', () => {
  assert.deepEqual([...PERMISSIONS].sort(), [...new Set(spec.map((o) => o.permission))].sort());
  assert.deepEqual([...FEATURES].sort(), [...new Set(spec.map((o) => o.module))].sort());
  for (const role of ROLES) assert.ok(ROLE_PERMISSIONS[role].size > 0, role);
  assert.equal(ROLE_PERMISSIONS.owner.size, PERMISSIONS.length);
  assert.ok(![...ROLE_PERMISSIONS.viewer].some((p) => !p.endsWith('.read')), 'viewer only reads');
  assert.ok(registry.size === operations.length, `operation names are unique: ${registry.size} names for ${operations.length} operations`);
});

test('the README’s role table is the one the code enforces', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const table = /<!-- roles:start -->\n([\s\S]*?)\n<!-- roles:end -->/.exec(readme)?.[1].trim().split('\n') ?? [];
  const expected = [
    `| permission | ${ROLES.join(' | ')} |`,
    `|---|${ROLES.map(() => ':-:').join('|')}|`,
    ...PERMISSIONS.map((p) => `| \`${p}\` | ${ROLES.map((r) => (ROLE_PERMISSIONS[r].has(p) ? '✓' : '')).join(' | ')} |`),
  ];
  assert.deepEqual(table, expected);
});
