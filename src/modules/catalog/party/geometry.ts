import { area } from '@turf/area';
import { polygon as turfPolygon } from '@turf/helpers';
import { kinks } from '@turf/kinks';
import { invalidInput } from '../../../rpc/errors.js';

/**
 * A plot's geometry under the EU Deforestation Regulation (Regulation (EU) 2023/1115, Art. 2(28) and 9(1)(d))
 * as the EU information system takes it: RFC 7946 GeoJSON in WGS 84, each position [longitude, latitude];
 * a Point for a plot of up to 4 ha, a Polygon (one closed ring of at least four positions, not crossing
 * itself) for any plot. Validity and area come from turf (@turf/kinks, @turf/area), not hand-written maths.
 */

export type Position = [longitude: number, latitude: number];
export type PlotGeometry = { type: 'Point'; coordinates: Position } | { type: 'Polygon'; coordinates: Position[][] };

/** Above this a plot needs a polygon (Art. 2(28)). */
export const POINT_MAX_HA = 4;
/** The stated area may differ from the polygon's computed one by this share before the plot carries a warning. */
export const AREA_TOLERANCE = 0.1;
/** Decimal places the regulation asks of a coordinate (Art. 2(28)). */
export const MIN_DECIMALS = 6;

export type GeometryRule =
  | 'coordinate_range'
  | 'precision'
  | 'ring_closed'
  | 'ring_positions'
  | 'single_ring'
  | 'self_intersection'
  | 'zero_area'
  | 'point_area';

export interface PlotWarning {
  rule: 'area_mismatch';
  message: string;
}

/** Decimal places of a number as JSON writes it (trailing zeros are not kept by any JSON number). */
function decimals(value: number): number {
  const text = String(value);
  const exponent = text.match(/e-(\d+)$/);
  if (exponent) return Number(exponent[1]) + (text.split('e')[0].split('.')[1]?.length ?? 0);
  return text.split('.')[1]?.length ?? 0;
}

/**
 * Checks a geometry against the rules above and answers its computed area (hectares, null for a point) and
 * warnings; a broken rule is a 400 naming the plot, the rule and the position. Precision: JSON numbers drop
 * trailing zeros (6.560400 arrives as 6.5604), so a single short coordinate proves nothing; a geometry in
 * which no coordinate carries six decimals was rounded (as spreadsheets do) and is refused.
 */
export function checkPlotGeometry(plotName: string, geometry: PlotGeometry, areaHa: number, path = 'geometry'): { computedAreaHa: number | null; warnings: PlotWarning[] } {
  const refuse = (rule: GeometryRule, where: string, message: string): never => {
    throw invalidInput([{ path: where, message: `${rule}: ${message}` }], `Plot "${plotName}" breaks the rule ${rule}: ${message}`);
  };
  const positions: [Position, string][] =
    geometry.type === 'Point'
      ? [[geometry.coordinates, `${path}.coordinates`]]
      : geometry.coordinates.flatMap((ring, r) => ring.map((p, i): [Position, string] => [p, `${path}.coordinates[${r}][${i}]`]));
  for (const [[lon, lat], where] of positions) {
    if (!(lon >= -180 && lon <= 180) || !(lat >= -90 && lat <= 90)) {
      refuse('coordinate_range', where, `[${lon}, ${lat}] is not [longitude −180…180, latitude −90…90] (GeoJSON puts longitude first)`);
    }
  }
  if (!positions.some(([[lon, lat]]) => decimals(lon) >= MIN_DECIMALS || decimals(lat) >= MIN_DECIMALS)) {
    refuse('precision', `${path}.coordinates`, `no coordinate carries ${MIN_DECIMALS} decimals: the geometry was rounded`);
  }
  if (geometry.type === 'Point') {
    if (areaHa > POINT_MAX_HA) refuse('point_area', `${path}.type`, `a plot of ${areaHa} ha (over ${POINT_MAX_HA} ha) needs a Polygon, not a Point`);
    return { computedAreaHa: null, warnings: [] };
  }
  if (geometry.coordinates.length !== 1) {
    refuse('single_ring', `${path}.coordinates`, 'one outer ring only: the EU information system reads no holes; give an excluded area as its own plot');
  }
  const ring = geometry.coordinates[0];
  if (ring.length < 4) refuse('ring_positions', `${path}.coordinates[0]`, `a ring needs at least 4 positions, it has ${ring.length}`);
  const [first, last] = [ring[0], ring[ring.length - 1]];
  if (first[0] !== last[0] || first[1] !== last[1]) refuse('ring_closed', `${path}.coordinates[0][${ring.length - 1}]`, 'the last position must repeat the first');
  const shape = turfPolygon(geometry.coordinates);
  const crossings = kinks(shape).features;
  if (crossings.length > 0) {
    const [x, y] = crossings[0].geometry.coordinates;
    refuse('self_intersection', `${path}.coordinates[0]`, `the ring crosses itself near [${x.toFixed(6)}, ${y.toFixed(6)}]`);
  }
  const computedAreaHa = Math.round(area(shape) / 100) / 100;
  if (computedAreaHa === 0) refuse('zero_area', `${path}.coordinates[0]`, 'the ring encloses no area');
  const warnings: PlotWarning[] = [];
  if (Math.abs(computedAreaHa - areaHa) > AREA_TOLERANCE * computedAreaHa) {
    warnings.push({
      rule: 'area_mismatch',
      message: `stated ${areaHa} ha, the polygon measures ${computedAreaHa} ha (more than ${AREA_TOLERANCE * 100} % apart)`,
    });
  }
  return { computedAreaHa, warnings };
}
