import { useState } from 'preact/hooks';
import { call, can, type Session } from '../session.ts';
import { ErrorBox, Link, Loading, MoreButton, usePaged, when } from '../ui.tsx';

/** Certificates (their public page and QR code are served by the service at /c/{token}). */
export function CertificateList({ session, roastedLotId, canIssue = false }: { session: Session; roastedLotId?: string; canIssue?: boolean }) {
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const list = usePaged(
    (cursor) =>
      call(session, 'traceability.listCertificates', { filter: roastedLotId ? { roastedLotId } : {}, page: { limit: 12, ...(cursor ? { cursor } : {}) } }),
    [session, roastedLotId, version],
  );
  const issue = async () => {
    setBusy(true);
    setError(null);
    try {
      await call(session, 'traceability.issueCertificate', { roastedLotId: roastedLotId! });
      setVersion((v) => v + 1);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {canIssue && roastedLotId && can(session, 'traceability.read') ? (
        <button type="button" disabled={busy} onClick={issue}>
          Issue a certificate
        </button>
      ) : null}
      <ErrorBox error={error ?? list.error} />
      {list.loading && list.items.length === 0 ? <Loading /> : null}
      {!list.loading && list.items.length === 0 && !list.error ? <p class="muted">No certificates.</p> : null}
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
      <MoreButton more={list.more} loading={list.loading} />
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
