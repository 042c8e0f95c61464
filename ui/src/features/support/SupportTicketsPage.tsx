import { useState } from 'react';
import {
  useCloseSupportTicketMutation,
  useListSupportTicketsQuery,
  useReplySupportTicketMutation,
  type SupportTicket,
} from '../../api/enhanced';
import { formatDateTime, waitedFor } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { TextDecisionDialog } from '../../components/TextDecisionDialog';
import { useRunMutation } from '../../components/useRunMutation';
import { useLabels } from '../../components/labels';

const statusBadge: Record<SupportTicket['status'], string> = {
  open: 'badge badge--warning',
  answered: 'badge badge--success',
  closed: 'badge',
};

function TicketItem({ ticket, onReply }: { ticket: SupportTicket; onReply: (t: SupportTicket) => void }) {
  const run = useRunMutation();
  const [closeTicket, { isLoading: closing }] = useCloseSupportTicketMutation();
  const labels = useLabels();
  const close = () => void run(closeTicket({ id: ticket._id }), { fallback: 'The ticket could not be closed.', success: 'Ticket closed.' });
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
        {ticket.replies > 0 ? <span>{ticket.replies === 1 ? '1 reply' : `${ticket.replies} replies`}</span> : null}
      </p>
      <p className="ticket__message">{ticket.message}</p>
      {ticket.lastReply ? (
        <div className="reviewer-comment">
          <p className="reviewer-comment__label">Last reply{ticket.lastReplyAt ? `, ${formatDateTime(ticket.lastReplyAt)}` : ''}</p>
          <p className="reviewer-comment__text">{ticket.lastReply}</p>
        </div>
      ) : null}
      {ticket.status !== 'closed' ? (
        <div className="button-row">
          <button type="button" className="button button--small" onClick={() => onReply(ticket)}>
            Reply to {ticket.user_name}
          </button>
          <button type="button" className="button button--secondary button--small" aria-disabled={closing || undefined} onClick={() => !closing && close()}>
            {closing ? 'Closing…' : 'Close ticket'}
          </button>
        </div>
      ) : null}
    </li>
  );
}

function ReplyDialog({ ticket, onClose }: { ticket: SupportTicket; onClose: () => void }) {
  const run = useRunMutation();
  const [reply, { isLoading }] = useReplySupportTicketMutation();
  return (
    <TextDecisionDialog
      title={`Reply to ${ticket.user_name}`}
      intro={
        <p>
          Your reply is e-mailed to <strong className="break-anywhere">{ticket.user_email}</strong>, quoting their message, and the ticket is
          marked answered.
        </p>
      }
      label="Reply"
      multiline
      maxLength={5000}
      requiredMessage="Please write a reply."
      field="message"
      submitLabel="Send reply"
      busyLabel="Sending…"
      busy={isLoading}
      onSubmit={(text) => run(reply({ id: ticket._id, replySupportTicketRequest: { message: text } }), { fallback: 'The reply could not be sent.', success: 'Reply sent.' })}
      onClose={onClose}
    />
  );
}

// The staff support queue: open tickets first, oldest first, each with a reply by e-mail.
export function SupportTicketsPage() {
  const queue = useListSupportTicketsQuery({}, { refetchOnMountOrArgChange: true });
  const [replyingTo, setReplyingTo] = useState<SupportTicket | null>(null);
  return (
    <section className="page container" aria-labelledby="tickets-title">
      <p className="eyebrow">Staff</p>
      <h1 id="tickets-title">Support Tickets</h1>
      <p className="muted">Open messages first, oldest first. A reply is e-mailed to whoever wrote; close a ticket once it needs nothing more.</p>
      <QueryState
        query={queue}
        loading="Loading the tickets…"
        failed="The support tickets could not be loaded."
        empty={{ when: (data) => data.tickets.length === 0, message: 'No messages yet.' }}
      >
        {(data) => (
          <ol className="queue" aria-busy={queue.isFetching || undefined}>
            {data.tickets.map((t) => (
              <TicketItem key={t._id} ticket={t} onReply={setReplyingTo} />
            ))}
          </ol>
        )}
      </QueryState>
      {replyingTo ? <ReplyDialog ticket={replyingTo} onClose={() => setReplyingTo(null)} /> : null}
    </section>
  );
}
