package api

import (
	"context"
	"io"
	"net/http"

	"clearvest/api/apigen"
	"clearvest/api/idempotency"
	appkyc "clearvest/app/kyc"
	"clearvest/domain/domainerr"
	"clearvest/domain/kyc"
)

// errKYCUnavailable answers the KYC operations of a server wired without the kyc service
// (tests of other parts).
var errKYCUnavailable = domainerr.New(domainerr.RuleBroken, "Identity checks are not available yet.")

const msgKYCUploaded = "KYC documents uploaded successfully!"

// kycCaller is the signed-in caller as the kyc service sees them.
func (s *server) kycCaller(ctx context.Context) (appkyc.Actor, error) {
	if s.kyc == nil {
		return appkyc.Actor{}, errKYCUnavailable
	}
	a, err := s.caller(ctx)
	if err != nil {
		return appkyc.Actor{}, err
	}
	return appkyc.Actor{UserID: a.UserID, Role: a.Role, IP: a.Client.IP}, nil
}

func (s *server) UploadKycDocuments(ctx context.Context, req apigen.UploadKycDocumentsRequestObject) (apigen.UploadKycDocumentsResponseObject, error) {
	a, err := s.kycCaller(ctx)
	if err != nil {
		return nil, err
	}
	key := ""
	if req.Params.IdempotencyKey != nil {
		key = *req.Params.IdempotencyKey
	}
	up, err := s.kyc.Upload(ctx, a, req.Body, key)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, up.Position)
	if w := exchangeFrom(ctx).w; w != nil && up.Replayed {
		w.Header().Set(idempotency.HeaderHit, "true")
	}
	return apigen.UploadKycDocuments200JSONResponse{Message: msgKYCUploaded, Kyc: myKycJSON(up.Case)}, nil
}

func (s *server) GetMyKyc(ctx context.Context, _ apigen.GetMyKycRequestObject) (apigen.GetMyKycResponseObject, error) {
	a, err := s.kycCaller(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.kyc.MyCase(ctx, a)
	if err != nil {
		return nil, err
	}
	return apigen.GetMyKyc200JSONResponse(myKycJSON(c)), nil
}

func (s *server) GetPendingKyc(ctx context.Context, req apigen.GetPendingKycRequestObject) (apigen.GetPendingKycResponseObject, error) {
	if _, err := s.kycCaller(ctx); err != nil {
		return nil, err
	}
	page, asOf, err := s.kyc.QueuePage(ctx, str(req.Params.Cursor), req.Params.Limit)
	if err != nil {
		return nil, err
	}
	out := apigen.GetPendingKyc200JSONResponse{AsOf: asOf, Total: page.Total, NextCursor: nextCursor(page.NextCursor),
		PendingUsers: make([]apigen.KycQueueItem, 0, len(page.Items))}
	for _, p := range page.Items {
		item := apigen.KycQueueItem{UnderscoreId: p.ID, Name: p.Name, Email: p.Email, Country: p.Country,
			Submission: p.Submission, SubmittedAt: p.SubmittedAt, Documents: make([]apigen.KycSide, 0, len(p.Sides))}
		for _, side := range p.Sides {
			item.Documents = append(item.Documents, apigen.KycSide(side))
		}
		out.PendingUsers = append(out.PendingUsers, item)
	}
	return out, nil
}

func (s *server) GetKycCase(ctx context.Context, req apigen.GetKycCaseRequestObject) (apigen.GetKycCaseResponseObject, error) {
	if _, err := s.kycCaller(ctx); err != nil {
		return nil, err
	}
	c, err := s.kyc.Case(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	out := apigen.GetKycCase200JSONResponse{KycStatus: apigen.KycStatus(c.Status), Documents: documentsJSON(c.Documents),
		Submissions: make([]apigen.KycSubmission, 0, len(c.Submissions)), AsOf: c.AsOf}
	out.User.UnderscoreId, out.User.Name, out.User.Email, out.User.Phone = c.User.ID, c.User.Name, c.User.Email, c.User.Phone
	out.User.Country, out.User.IsVerified, out.User.CreatedAt = c.User.Country, c.User.Verified, c.User.CreatedAt
	out.User.Status = apigen.KycCaseUserStatus(c.User.Status)
	for _, sub := range c.Submissions {
		out.Submissions = append(out.Submissions, apigen.KycSubmission{Submission: sub.Number, SubmittedAt: sub.At,
			Documents: documentsJSON(sub.Documents), Decision: decisionJSON(sub.Decision)})
	}
	return out, nil
}

// kycDocumentResponse streams a document with the headers that keep a browser from ever
// treating it as a page of our origin: an attachment, no sniffing, a sandbox, and no caching.
type kycDocumentResponse struct{ appkyc.DocumentFile }

func (r kycDocumentResponse) VisitDownloadKycDocumentResponse(w http.ResponseWriter) error {
	defer r.Body.Close()
	h := w.Header()
	h.Set("Content-Type", r.ContentType)
	// The name is ours (side and extension), so it needs no escaping.
	h.Set("Content-Disposition", `attachment; filename="`+r.Filename+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	_, err := io.Copy(w, r.Body)
	return err
}

func (s *server) DownloadKycDocument(ctx context.Context, req apigen.DownloadKycDocumentRequestObject) (apigen.DownloadKycDocumentResponseObject, error) {
	a, err := s.kycCaller(ctx)
	if err != nil {
		return nil, err
	}
	key := ""
	if req.Params.IdempotencyKey != nil {
		key = *req.Params.IdempotencyKey
	}
	f, err := s.kyc.Document(ctx, a, req.Id, req.Submission, string(req.Side), key)
	if err != nil {
		return nil, err
	}
	if w := exchangeFrom(ctx).w; w != nil && f.Replayed {
		w.Header().Set(idempotency.HeaderHit, "true")
	}
	return kycDocumentResponse{f}, nil
}

func (s *server) ApproveKyc(ctx context.Context, req apigen.ApproveKycRequestObject) (apigen.ApproveKycResponseObject, error) {
	a, err := s.kycCaller(ctx)
	if err != nil {
		return nil, err
	}
	submission := 0
	if req.Body != nil && req.Body.Submission != nil {
		submission = *req.Body.Submission
	}
	pos, err := s.kyc.Approve(ctx, a, req.Id, submission)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.ApproveKyc200JSONResponse{Message: "KYC approved successfully"}, nil
}

func (s *server) RejectKyc(ctx context.Context, req apigen.RejectKycRequestObject) (apigen.RejectKycResponseObject, error) {
	a, err := s.kycCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, kyc.ErrNoRejections
	}
	in := appkyc.RejectInput{}
	if req.Body.Submission != nil {
		in.Submission = *req.Body.Submission
	}
	if req.Body.Reason != nil {
		in.Comment = *req.Body.Reason
	}
	for _, d := range req.Body.Documents {
		in.Documents = append(in.Documents, kyc.Rejection{Side: kyc.Side(d.Side), Reason: kyc.Reason(d.Reason)})
	}
	pos, err := s.kyc.Reject(ctx, a, req.Id, in)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.RejectKyc200JSONResponse{Message: "KYC rejected successfully"}, nil
}

func (s *server) GetInvestEligibility(ctx context.Context, _ apigen.GetInvestEligibilityRequestObject) (apigen.GetInvestEligibilityResponseObject, error) {
	a, err := s.kycCaller(ctx)
	if err != nil {
		return nil, err
	}
	reason, err := s.kyc.Eligibility(ctx, a)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return apigen.GetInvestEligibility200JSONResponse{Eligible: false, Reason: &reason}, nil
	}
	return apigen.GetInvestEligibility200JSONResponse{Eligible: true}, nil
}

func myKycJSON(c appkyc.MyCase) apigen.MyKyc {
	out := apigen.MyKyc{KycStatus: apigen.KycStatus(c.Status), Submission: c.Submission, SubmittedAt: c.SubmittedAt,
		Documents: documentsJSON(c.Documents), Resubmit: make([]apigen.KycSide, 0, len(c.Resubmit)),
		LastDecision: decisionJSON(c.LastDecision)}
	for _, side := range c.Resubmit {
		out.Resubmit = append(out.Resubmit, apigen.KycSide(side))
	}
	return out
}

func documentsJSON(docs []appkyc.DocumentView) []apigen.KycDocument {
	out := make([]apigen.KycDocument, 0, len(docs))
	for _, d := range docs {
		out = append(out, apigen.KycDocument{Side: apigen.KycSide(d.Side), Submission: d.Submission, ContentType: d.ContentType,
			Size: d.Size, Sha256: d.SHA256, Url: d.URL})
	}
	return out
}

func decisionJSON(d *appkyc.DecisionView) *apigen.KycDecision {
	if d == nil {
		return nil
	}
	out := &apigen.KycDecision{Status: apigen.KycDecisionStatus(d.Status), At: d.At, Comment: d.Comment,
		Reviewer:  apigen.KycPerson{UnderscoreId: d.Reviewer.ID, Name: d.Reviewer.Name},
		Documents: make([]apigen.KycDocumentRejection, 0, len(d.Rejections))}
	for _, r := range d.Rejections {
		out.Documents = append(out.Documents, apigen.KycDocumentRejection{Side: apigen.KycSide(r.Side), Reason: apigen.KycRejectionReason(r.Reason)})
	}
	return out
}
