import type { AreaProps } from '../areas.tsx';

export function view({ parts }: AreaProps) {
  return <h1>Webhooks</h1>;
}
