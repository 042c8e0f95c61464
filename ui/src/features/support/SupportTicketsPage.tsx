import { useState } from 'react';
import {
  useCloseSupportTicketMutation,
  useListSupportTicketsQuery,
  useReplySupportTicketMutation,
  type SupportTicket,
} from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { useWaitedFor } from '../../components/PagedQueue';
import { QueryState } from '../../components/QueryState';
import { KeyboardQueue } from '../../components/QueueShortcuts';
import { TextDecisionDialog } from '../../components/TextDecisionDialog';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { useLabels } from '../../components/labels';
import { Trans, useTranslation } from '../../i18n';

const statusBadge: Record<SupportTicket['status'], string> = {
  open: 'badge badge--warning',
  answered: 'badge badge--success',
  closed: 'badge',
};

function TicketItem({ ticket, onReply }: { ticket: SupportTicket; onReply: (t: SupportTicket) => void }) {
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [closeTicket, { isLoading: closing }] = useCloseSupportTicketMutation();
  const labels = useLabels();
  const { t } = useTranslation('staff');
  const waitedFor = useWaitedFor();
  const close = () => void run(closeTicket({ id: ticket._id }), { fallback: t('tickets.closeFailed'), success: t('tickets.closed'), formError: setFormError });
  return (
    <li className="queue-item ticket" data-testid="support-ticket">
      <div className="queue-item__who">
        <h2 className="queue-item__name">{ticket.user_name}</h2>
        <p className="break-anywhere muted">{ticket.user_email}</p>
      </div>
      <p className="queue-item__meta">
        <span className={statusBadge[ticket.status] ?? 'badge'}>{labels.ticket(ticket.status)}</span>
        <span>
          <time dateTime={ticket.createdAt} title={formatDateTime(ticket.createdAt)}>
            {waitedFor(ticket.ageSeconds)}
          </time>
        </span>
        {ticket.replies > 0 ? <span>{t('tickets.replies', { count: ticket.replies })}</span> : null}
      </p>
      <p className="ticket__message">{ticket.message}</p>
      {ticket.lastReply ? (
        <div className="reviewer-comment">
          <p className="reviewer-comment__label">
            {ticket.lastReplyAt ? t('tickets.lastReplyAt', { at: formatDateTime(ticket.lastReplyAt) }) : t('tickets.lastReply')}
          </p>
          <p className="reviewer-comment__text">{ticket.lastReply}</p>
        </div>
      ) : null}
      <FormError message={formError} />
      {ticket.status !== 'closed' ? (
        <div className="button-row">
          <button type="button" className="button button--small" onClick={() => onReply(ticket)}>
            {t('tickets.reply', { name: ticket.user_name })}
          </button>
          <button type="button" className="button button--secondary button--small" aria-disabled={closing || undefined} onClick={() => !closing && close()}>
            {closing ? t('tickets.closing') : t('tickets.close')}
          </button>
        </div>
      ) : null}
    </li>
  );
}

function ReplyDialog({ ticket, onClose }: { ticket: SupportTicket; onClose: () => void }) {
  const { t } = useTranslation('staff');
  const run = useRunMutation();
  const [reply, { isLoading }] = useReplySupportTicketMutation();
  return (
    <TextDecisionDialog
      title={t('tickets.reply', { name: ticket.user_name })}
      intro={
        <p>
          <Trans t={t} i18nKey="tickets.intro" values={{ email: ticket.user_email }} components={{ email: <strong className="break-anywhere" /> }} />
        </p>
      }
      label={t('tickets.replyLabel')}
      multiline
      maxLength={5000}
      requiredMessage={t('tickets.replyRequired')}
      field="message"
      submitLabel={t('tickets.send')}
      busyLabel={t('tickets.sending')}
      busy={isLoading}
      onSubmit={(text, formError) =>
        run(reply({ id: ticket._id, replySupportTicketRequest: { message: text } }), { fallback: t('tickets.sendFailed'), success: t('tickets.sent'), formError })
      }
      onClose={onClose}
    />
  );
}

// The staff support queue: open tickets first, oldest first, each with a reply by e-mail.
export function SupportTicketsPage() {
  const { t } = useTranslation('staff');
  const queue = useListSupportTicketsQuery({}, { refetchOnMountOrArgChange: true });
  const [replyingTo, setReplyingTo] = useState<SupportTicket | null>(null);
  return (
    <section className="page container" aria-labelledby="tickets-title">
      <p className="eyebrow">{t('common.eyebrow')}</p>
      <h1 id="tickets-title">{t('tickets.title')}</h1>
      <p className="muted">{t('tickets.lead')}</p>
      <QueryState
        query={queue}
        loading={t('tickets.loading')}
        failed={t('tickets.failed')}
        empty={{ when: (data) => data.tickets.length === 0, message: t('tickets.empty') }}
      >
        {(data) => (
          <KeyboardQueue>
            <ol className="queue" aria-busy={queue.isFetching || undefined}>
              {data.tickets.map((ticket) => (
                <TicketItem key={ticket._id} ticket={ticket} onReply={setReplyingTo} />
              ))}
            </ol>
          </KeyboardQueue>
        )}
      </QueryState>
      {replyingTo ? <ReplyDialog ticket={replyingTo} onClose={() => setReplyingTo(null)} /> : null}
    </section>
  );
}
