import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

// One time series drawn by uPlot on a canvas, resized with its container. The canvas is an image
// to a screen reader, so the same figures are offered as a table by the caller.

export function SeriesChart(props: {
  title: string;
  times: number[];
  values: (number | null)[];
  format(value: number): string;
  bars?: boolean;
  max?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const half = props.times.length > 1 ? (props.times[1]! - props.times[0]!) / 2 : 1800;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 200,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: {
        // Bars are centred on their time: half a bucket either side keeps the first and last whole.
        x: { time: true, range: (_u, min, max) => (props.bars ? [min - half, max + half] : [min, max]) },
        y: { range: (_u, _min, max) => [0, props.max ?? Math.max(1, max)] },
      },
      axes: [{}, { values: (_u, ticks) => ticks.map((t) => props.format(t)), size: 70 }],
      series: [
        {},
        {
          label: props.title,
          stroke: '#1d4ed8',
          width: 2,
          fill: props.bars ? 'rgba(29, 78, 216, 0.35)' : undefined,
          paths: props.bars ? uPlot.paths.bars!({ size: [0.7, 40] }) : undefined,
          spanGaps: !props.bars,
          points: { show: !props.bars },
        },
      ],
    };
    const chart = new uPlot(opts, [props.times, props.values], el);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(200, el.clientWidth), height: 200 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [props.times, props.values]);
  return <div ref={box} class="chart" role="img" aria-label={props.title} />;
}
