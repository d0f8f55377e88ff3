import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { eventLabel, type CurveBuffer, type Reference } from './curve.ts';
import { cToF, currentUnits, onUnits, type TempUnit } from './units.ts';

/**
 * The roast curve on a canvas (uPlot): bean temperature (BT), environment temperature (ET) and BT's rate of rise
 * (RoR, °C/min, right axis), with roast events as labelled lines, and behind it the reference: a curve to follow
 * (the profile's last completed batch) and the profile's targets (drop temperature, total time).
 *
 * Temperatures are drawn in the user's unit (°C or °F, units.ts): the curve keeps °C, as the API answers, and
 * the chart converts what it draws; a change of unit redraws it.
 */

export interface RoastChart {
  update(): void;
  setReference(reference: Reference | null): void;
  resize(width: number): void;
  destroy(): void;
}

const mmss = (s: number) => `${s < 0 ? '-' : ''}${Math.floor(Math.abs(s) / 60)}:${String(Math.floor(Math.abs(s) % 60)).padStart(2, '0')}`;

/** A temperature and a rate of rise (per minute) in `unit`, from °C. */
const temperatureIn = (unit: TempUnit) => (c: number) => (unit === 'F' ? cToF(c) : c);
const rateIn = (unit: TempUnit) => (c: number) => (unit === 'F' ? (c * 9) / 5 : c);

export function roastChart(el: HTMLElement, curve: CurveBuffer, options: { height?: number } = {}): RoastChart {
  let reference: Reference | null = null;
  let unit = currentUnits().temp;
  let temp = temperatureIn(unit);
  let rate = rateIn(unit);
  const data = (): uPlot.AlignedData => {
    const [t, bt, et, ror] = curve.data() as [number[], (number | null)[], (number | null)[], (number | null)[]];
    if (unit === 'C') return [t, bt, et, ror];
    const inUnit = (f: (c: number) => number) => (v: number | null) => (v === null ? null : f(v));
    return [t, bt.map(inUnit(temp)), et.map(inUnit(temp)), ror.map(inUnit(rate))];
  };
  const width = () => Math.max(280, el.clientWidth);
  const height = () => options.height ?? (el.clientWidth < 600 ? 260 : 380);

  const drawReference = (u: uPlot) => {
    if (!reference) return;
    const ctx = u.ctx;
    ctx.save();
    ctx.beginPath();
    ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
    ctx.clip();
    ctx.strokeStyle = 'rgba(120, 120, 120, 0.45)';
    ctx.lineWidth = 6 * uPlot.pxRatio;
    ctx.lineJoin = 'round';
    ctx.beginPath();
    let started = false;
    for (let i = 0; i < reference.t.length; i++) {
      const v = reference.bt[i];
      if (v === null) continue;
      const x = u.valToPos(reference.t[i], 'x', true);
      const y = u.valToPos(temp(v), 'y', true);
      if (started) ctx.lineTo(x, y);
      else ctx.moveTo(x, y), (started = true);
    }
    ctx.stroke();
    ctx.setLineDash([4 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
    ctx.lineWidth = 1 * uPlot.pxRatio;
    ctx.strokeStyle = 'rgba(90, 90, 90, 0.8)';
    if (reference.dropTempC != null) {
      const y = u.valToPos(temp(reference.dropTempC), 'y', true);
      ctx.beginPath();
      ctx.moveTo(u.bbox.left, y);
      ctx.lineTo(u.bbox.left + u.bbox.width, y);
      ctx.stroke();
    }
    if (reference.totalTimeS != null) {
      const x = u.valToPos(reference.totalTimeS, 'x', true);
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
    }
    ctx.restore();
  };

  const drawEvents = (u: uPlot) => {
    const ctx = u.ctx;
    ctx.save();
    ctx.font = `${11 * uPlot.pxRatio}px system-ui, sans-serif`;
    ctx.fillStyle = '#3b2a20';
    ctx.strokeStyle = 'rgba(59, 42, 32, 0.6)';
    ctx.lineWidth = 1 * uPlot.pxRatio;
    curve.events.forEach((event, n) => {
      const x = u.valToPos(event.t / 1000, 'x', true);
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.fillText(eventLabel(event.type), x + 3 * uPlot.pxRatio, u.bbox.top + (12 + (n % 3) * 12) * uPlot.pxRatio);
    });
    ctx.restore();
  };

  const build = () => {
    el.dataset.temperatureUnit = unit;
    return new uPlot(
      {
        width: width(),
        height: height(),
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: {
          x: { time: false, range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(reference?.totalTimeS ?? 0, reference?.t.at(-1) ?? 0, (max ?? 0) + 30, 600)] },
          y: { range: (_u, min, max) => [Math.min(temp(20), Math.floor((min ?? temp(20)) / 10) * 10), Math.max(temp(260), Math.ceil(((max ?? temp(260)) + 5) / 10) * 10)] },
          ror: { range: [0, rate(30)] },
        },
        axes: [
          { values: (_u, ticks) => ticks.map(mmss), size: 30 },
          { label: `°${unit}`, size: 44 },
          { scale: 'ror', side: 1, label: `RoR °${unit}/min`, grid: { show: false }, size: 44 },
        ],
        series: [
          { label: 'time' },
          { label: 'BT', stroke: '#b3261e', width: 2, spanGaps: true },
          { label: 'ET', stroke: '#1f5fa8', width: 1.5, spanGaps: true },
          { label: 'RoR', stroke: '#2e7d32', width: 1, scale: 'ror', spanGaps: true },
        ],
        hooks: { drawAxes: [drawReference], draw: [drawEvents] },
      },
      data(),
      el,
    );
  };
  let plot = build();
  const stopListening = onUnits((units) => {
    if (units.temp === unit) return;
    unit = units.temp;
    temp = temperatureIn(unit);
    rate = rateIn(unit);
    plot.destroy();
    plot = build();
  });
  return {
    update: () => plot.setData(data()),
    setReference(next) {
      reference = next;
      plot.redraw(false, true);
    },
    resize: (w) => plot.setSize({ width: Math.max(280, w), height: options.height ?? (w < 600 ? 260 : 380) }),
    destroy: () => {
      stopListening();
      plot.destroy();
    },
  };
}

