import type { AreaProps } from '../areas.tsx';
import { OrderDetail, Orders } from './orders.tsx';

/** Orders and customers. */
export function view({ session, parts: [head, id] }: AreaProps) {
  if (head === 'orders' && id) return <OrderDetail key={id} session={session} id={id} />;
  return <Orders session={session} />;
}
