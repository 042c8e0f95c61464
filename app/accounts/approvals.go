package accounts

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"clearvest/app/approvals"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/domain/proposal"
)

// Granting the admin role and closing any account need a second admin (docs/security.md,
// "Separation of duties"): ProposeAdmin and ProposeClose open the proposal, and the executors
// RegisterExecutors installs carry it out once another admin approves.

// ErrReasonForSecond asks for the reason a proposal needs.
var ErrReasonForSecond = func() *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, "A second admin must approve this: please give a reason.")
	e.Field = "reason"
	return e
}()

// ErrAlreadyAdmin refuses to propose the admin role to an admin.
var ErrAlreadyAdmin = domainerr.New(domainerr.Conflict, "This user is already an admin.")

// ProposeAdmin proposes giving targetID the admin role.
func (s *Service) ProposeAdmin(ctx context.Context, ap *approvals.Service, a Actor, targetID, reason string) (approvals.Proposed, error) {
	u, err := s.proposalTarget(ctx, a, targetID, reason)
	if err != nil {
		return approvals.Proposed{}, err
	}
	if u.ID() == a.UserID {
		return approvals.Proposed{}, identity.ErrOwnRole
	}
	if u.Role() == identity.RoleAdmin && u.Status() == identity.StatusActive {
		return approvals.Proposed{}, ErrAlreadyAdmin
	}
	return ap.Propose(ctx, approvalActor(a), approvals.Request{Kind: proposal.KindAdminGrant, SubjectID: u.ID(), UserID: u.ID(),
		Amount: money.Zero, Why: "Granting the admin role needs a second admin.", Reason: reason,
		Params: map[string]string{"role": string(identity.RoleAdmin)}})
}

// ProposeClose proposes closing targetID's account.
func (s *Service) ProposeClose(ctx context.Context, ap *approvals.Service, a Actor, targetID, reason string) (approvals.Proposed, error) {
	u, err := s.proposalTarget(ctx, a, targetID, reason)
	if err != nil {
		return approvals.Proposed{}, err
	}
	if u.Status() == identity.StatusClosed {
		return approvals.Proposed{}, identity.ErrClosed
	}
	// An account that still holds money is refused now, not only when the second admin
	// approves (Close checks again then).
	if err := s.closeRefusal(ctx, u.ID()); err != nil {
		return approvals.Proposed{}, err
	}
	return ap.Propose(ctx, approvalActor(a), approvals.Request{Kind: proposal.KindAccountClosure, SubjectID: u.ID(), UserID: u.ID(),
		Amount: money.Zero, Why: "Closing an account needs a second admin.", Reason: reason})
}

func (s *Service) proposalTarget(ctx context.Context, a Actor, targetID, reason string) (loaded, error) {
	id, err := uuid.Parse(strings.TrimSpace(targetID))
	if err != nil {
		return loaded{}, ErrUserNotFound
	}
	if strings.TrimSpace(reason) == "" {
		return loaded{}, ErrReasonForSecond
	}
	u, err := s.loadUser(ctx, id.String())
	if err != nil {
		return loaded{}, err
	}
	if !u.Registered() {
		return loaded{}, ErrUserNotFound
	}
	return u, nil
}

// RegisterExecutors tells the approvals service how to carry out approved account proposals:
// the role change or the closure runs as the approving admin, in the approval's transaction.
func (s *Service) RegisterExecutors(ap *approvals.Service) {
	ap.Handle(proposal.KindAdminGrant, func(ctx context.Context, approver approvals.Actor, p proposal.Proposal) (int64, error) {
		return s.SetRole(ctx, fromApprovalActor(approver), p.SubjectID, p.Params["role"])
	})
	ap.Handle(proposal.KindAccountClosure, func(ctx context.Context, approver approvals.Actor, p proposal.Proposal) (int64, error) {
		return s.Close(ctx, fromApprovalActor(approver), p.SubjectID)
	})
}

func approvalActor(a Actor) approvals.Actor {
	return approvals.Actor{UserID: a.UserID, Role: a.Role, IP: a.Client.IP}
}

func fromApprovalActor(a approvals.Actor) Actor {
	return Actor{UserID: a.UserID, Role: a.Role, Client: Client{IP: a.IP}}
}
