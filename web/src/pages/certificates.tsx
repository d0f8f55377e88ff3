import { useState } from 'preact/hooks';
import { call, can, type Session } from '../session.ts';
import { BusyButton, ErrorBox, Link, ListFooter, useAction, usePaged, when } from '../ui.tsx';

/** Certificates (their public page and QR code are served by the service at /c/{token}). */
export function CertificateList({ session, roastedLotId, canIssue = false }: { session: Session; roastedLotId?: string; canIssue?: boolean }) {
  const [version, setVersion] = useState(0);
  const action = useAction();
  const list = usePaged(
    (cursor) =>
      call(session, 'traceability.listCertificates', { filter: roastedLotId ? { roastedLotId } : {}, page: { limit: 12, ...(cursor ? { cursor } : {}) } }),
    [session, roastedLotId, version],
  );
  const issue = async () => {
    const issued = await action.run('Issuing the certificate…', () => call(session, 'traceability.issueCertificate', { roastedLotId: roastedLotId! }));
    if (issued) setVersion((v) => v + 1);
  };
  return (
    <>
      {canIssue && roastedLotId && can(session, 'traceability.read') ? (
        <BusyButton busy={action.busy} busyLabel="Issuing the certificate…" onClick={issue}>
          Issue a certificate
        </BusyButton>
      ) : null}
      <ErrorBox error={action.error ?? list.error} />
      <div class="certs">
        {list.items.map((c) => (
          <article class="card cert" data-certificate={c.id}>
            <img src={c.qrSvgPath} width="120" height="120" alt={`QR code for certificate of ${c.snapshot.roastedLot.lotCode}`} loading="lazy" />
            <div>
              <h3>{c.snapshot.roastedLot.lotCode}</h3>
              <p class="muted">
                {c.snapshot.producers.map((p) => p.name).join(', ') || 'No producer recorded'}
                <br />
                issued {when(c.issuedAt)}
                {c.snapshot.orderLine ? ` · for ${c.snapshot.orderLine.customer.name}` : ''}
              </p>
              <p>
                <a href={c.publicPath} target="_blank" rel="noopener" class="cert-link">
                  Open certificate
                </a>{' '}
                · <Link to={`/trace/roasted_lot/${c.roastedLotId}`}>Trace</Link>
              </p>
            </div>
          </article>
        ))}
      </div>
      <ListFooter list={list} what="certificates" />
    </>
  );
}

export function Certificates({ session }: { session: Session }) {
  return (
    <>
      <h1>Certificates</h1>
      <CertificateList session={session} />
    </>
  );
}
