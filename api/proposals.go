package api

import (
	"context"

	"clearvest/api/apigen"
	"clearvest/app/approvals"
	"clearvest/domain/domainerr"
	"clearvest/projections/proposals"
)

const (
	msgSentForApproval  = "Sent to a second staff member for approval"
	msgProposalApproved = "Approved and carried out"
	msgProposalRejected = "Proposal rejected"
	maxListedProposals  = 200
	maxRecentProposals  = 50
)

// errApprovalsUnavailable answers the proposal operations of a server wired without them.
var errApprovalsUnavailable = domainerr.New(domainerr.RuleBroken, "Approvals are not available.")

func (s *server) approvalCaller(ctx context.Context) (approvals.Actor, error) {
	if s.approvals == nil {
		return approvals.Actor{}, errApprovalsUnavailable
	}
	a, err := s.caller(ctx)
	if err != nil {
		return approvals.Actor{}, err
	}
	return approvals.Actor{UserID: a.UserID, Role: a.Role, IP: a.Client.IP}, nil
}

func (s *server) GetProposals(ctx context.Context, _ apigen.GetProposalsRequestObject) (apigen.GetProposalsResponseObject, error) {
	if _, err := s.approvalCaller(ctx); err != nil {
		return nil, err
	}
	q, err := s.approvals.List(ctx, maxListedProposals, maxRecentProposals)
	if err != nil {
		return nil, err
	}
	pending, recent := q.Pending, q.Recent
	out := apigen.GetProposals200JSONResponse{Pending: make([]apigen.Proposal, 0, len(pending)), Recent: make([]apigen.Proposal, 0, len(recent))}
	for _, p := range pending {
		out.Pending = append(out.Pending, proposalJSON(p))
	}
	for _, p := range recent {
		out.Recent = append(out.Recent, proposalJSON(p))
	}
	if s.money != nil {
		t, err := s.money.Thresholds(ctx)
		if err != nil {
			return nil, err
		}
		out.Thresholds = apigen.ApprovalThresholds{DepositTolerancePercent: t.DepositTolerance.Shift(2).String(),
			DepositThreshold: t.DepositThreshold.String(), WithdrawalThreshold: t.WithdrawalThreshold.String(), MaxAmount: t.MaxAmount.String()}
	}
	return out, nil
}

func proposalJSON(p proposals.Row) apigen.Proposal {
	out := apigen.Proposal{Id: p.ID, Kind: apigen.ProposalKind(p.Kind), SubjectId: p.SubjectID,
		User: apigen.StaffPerson{UnderscoreId: p.UserID, Name: p.UserName}, Amount: p.Amount.String(), Why: p.Why,
		Params: p.Params, Proposer: apigen.StaffPerson{UnderscoreId: p.ProposerID, Name: p.ProposerName}, Reason: p.Reason,
		Status: apigen.ProposalStatus(p.Status), OpenedAt: p.OpenedAt, DecisionReason: p.DecisionReason, DecidedAt: p.DecidedAt}
	if out.Params == nil {
		out.Params = map[string]string{}
	}
	if p.DeciderID != "" {
		out.Decider = &apigen.StaffPerson{UnderscoreId: p.DeciderID, Name: p.DeciderName}
	}
	return out
}

func (s *server) ApproveProposal(ctx context.Context, req apigen.ApproveProposalRequestObject) (apigen.ApproveProposalResponseObject, error) {
	a, err := s.approvalCaller(ctx)
	if err != nil {
		return nil, err
	}
	var reason string
	params := map[string]string{}
	if b := req.Body; b != nil {
		reason = str(b.Reason)
		for k, v := range map[string]*string{"txHash": b.TxHash, "onChainAmount": b.OnChainAmount, "usdRate": b.UsdRate} {
			if v != nil {
				params[k] = *v
			}
		}
	}
	pos, err := s.approvals.Approve(ctx, a, req.ProposalId, reason, params)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.ApproveProposal200JSONResponse{Message: msgProposalApproved}, nil
}

func (s *server) RejectProposal(ctx context.Context, req apigen.RejectProposalRequestObject) (apigen.RejectProposalResponseObject, error) {
	a, err := s.approvalCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	pos, err := s.approvals.Reject(ctx, a, req.ProposalId, req.Body.Reason)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.RejectProposal200JSONResponse{Message: msgProposalRejected}, nil
}
