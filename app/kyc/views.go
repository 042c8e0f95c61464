package kyc

import (
	"clearvest/platform/pgread"
	"context"
	"fmt"
	"time"

	"clearvest/domain/kyc"
	"clearvest/projections/keyset"
	"clearvest/projections/users"
)

// DocumentView is one document as the API shows it. URL is "" once the file was deleted.
type DocumentView struct {
	Side        kyc.Side
	Submission  int
	ContentType string
	Size        int64
	SHA256      string
	URL         string
}

// Person names a staff member.
type Person struct {
	ID   string
	Name string // "" for a closed account
}

// DecisionView is a decision with the reviewer's name.
type DecisionView struct {
	Status     kyc.Status
	At         time.Time
	Reviewer   Person
	Rejections []kyc.Rejection
	Comment    string
}

// SubmissionView is one submission with its decision, if any.
type SubmissionView struct {
	Number    int
	At        time.Time
	Documents []DocumentView
	Decision  *DecisionView
}

// MyCase is the user's own view of their identity check.
type MyCase struct {
	Status       kyc.Status
	Submission   int
	SubmittedAt  *time.Time
	Documents    []DocumentView
	Resubmit     []kyc.Side
	LastDecision *DecisionView
}

// CaseUser is the profile a reviewer compares the documents with.
type CaseUser struct {
	ID, Name, Email, Phone, Country string
	Verified                        bool
	Status                          string
	CreatedAt                       time.Time
}

// CaseView is a reviewer's view of one user's identity check.
type CaseView struct {
	User        CaseUser
	Status      kyc.Status
	Documents   []DocumentView
	Submissions []SubmissionView // newest first
	AsOf        time.Time
}

// QueueItem is one identity check waiting for review.
type QueueItem struct {
	ID, Name, Email, Country string
	Submission               int
	SubmittedAt              time.Time
	Sides                    []string
}

// MyCase returns the caller's own case.
func (s *Service) MyCase(ctx context.Context, a Actor) (MyCase, error) {
	userID, err := parseUser(a.UserID)
	if err != nil {
		return MyCase{}, err
	}
	c, err := s.load(ctx, userID)
	if err != nil {
		return MyCase{}, err
	}
	names := s.names()
	out := MyCase{Status: c.Status(), Submission: c.Submission(), Resubmit: c.Resubmit(), Documents: documents(c)}
	if out.Resubmit == nil {
		out.Resubmit = []kyc.Side{}
	}
	if subs := c.Submissions(); len(subs) > 0 {
		at := subs[len(subs)-1].At
		out.SubmittedAt = &at
	}
	if d := c.LastDecision(); d != nil {
		v := names.decision(ctx, d)
		out.LastDecision = &v
	}
	return out, nil
}

// Case returns one user's case for a reviewer: the profile, the documents on file and every
// submission, newest first, with its decision and the reviewer's name.
func (s *Service) Case(ctx context.Context, userID string) (CaseView, error) {
	userID, err := parseUser(userID)
	if err != nil {
		return CaseView{}, err
	}
	c, err := s.load(ctx, userID)
	if err != nil {
		return CaseView{}, err
	}
	if !c.Registered() {
		return CaseView{}, ErrUserNotFound
	}
	u, err := users.Get(ctx, pgread.On(ctx, s.pool), userID)
	if err != nil {
		return CaseView{}, err
	}
	names := s.names()
	out := CaseView{
		User: CaseUser{ID: u.ID, Name: u.Name, Email: u.Email, Phone: u.Phone, Country: u.Country, Verified: c.EmailVerified(),
			Status: string(u.Status), CreatedAt: u.CreatedAt},
		Status: c.Status(), Documents: documents(c), AsOf: s.clock.Now().UTC(),
	}
	subs := c.Submissions()
	for i := len(subs) - 1; i >= 0; i-- {
		sub := subs[i]
		v := SubmissionView{Number: sub.Number, At: sub.At}
		for _, d := range sub.Documents {
			v.Documents = append(v.Documents, documentView(c, sub.Number, d))
		}
		if sub.Decision != nil {
			d := names.decision(ctx, sub.Decision)
			v.Decision = &d
		}
		out.Submissions = append(out.Submissions, v)
	}
	return out, nil
}

// QueuePage reads a page of the identity checks waiting for review, oldest submission first, as
// the money queues are paged (keyset.Read), with the app clock's reading that waiting times
// count to.
func (s *Service) QueuePage(ctx context.Context, cursor string, limit *int) (keyset.Page[QueueItem], time.Time, error) {
	p, err := keyset.Read(cursor, limit, func(after *keyset.Cursor, n int) ([]QueueItem, int, bool, error) {
		list, total, more, err := users.KYCQueuePage(ctx, pgread.On(ctx, s.pool), after, n)
		if err != nil {
			return nil, 0, false, err
		}
		out := make([]QueueItem, 0, len(list))
		for _, p := range list {
			out = append(out, QueueItem{ID: p.ID, Name: p.Name, Email: p.Email, Country: p.Country,
				Submission: p.Submission, SubmittedAt: p.SubmittedAt, Sides: p.Sides})
		}
		return out, total, more, nil
	}, func(q QueueItem) keyset.Cursor { return keyset.Cursor{At: q.SubmittedAt, ID: q.ID} })
	if err != nil {
		return keyset.Page[QueueItem]{}, time.Time{}, err
	}
	return p, s.clock.Now().UTC(), nil
}

// Eligibility answers whether the caller may start an investment: an empty reason, or the
// sentence saying what is missing. Not being eligible yet is an answer, not an error; err is only
// for a failure to find out.
func (s *Service) Eligibility(ctx context.Context, a Actor) (reason string, err error) {
	userID, err := parseUser(a.UserID)
	if err != nil {
		return "", err
	}
	c, err := s.load(ctx, userID)
	if err != nil {
		return "", err
	}
	if refusal := kyc.MayInvest(c.EmailVerified(), c.Status()); refusal != nil {
		return refusal.Error(), nil
	}
	return "", nil
}

func documents(c *kyc.Case) []DocumentView {
	out := []DocumentView{}
	for _, f := range c.OnFile() {
		out = append(out, documentView(c, f.Submission, f.Document))
	}
	return out
}

func documentView(c *kyc.Case, submission int, d kyc.Document) DocumentView {
	v := DocumentView{Side: d.Side, Submission: submission, ContentType: d.ContentType, Size: d.Size, SHA256: d.SHA256}
	if !c.Closed() && !c.Deleted(kyc.DocumentRef{Submission: submission, Side: d.Side}) {
		v.URL = DocumentURL(c.UserID(), submission, d.Side)
	}
	return v
}

// DocumentURL is where the API serves a document.
func DocumentURL(userID string, submission int, side kyc.Side) string {
	return fmt.Sprintf("/api/users/kyc/%s/documents/%d/%s", userID, submission, side)
}

// nameCache looks reviewers up once per answer.
type nameCache struct {
	s     *Service
	names map[string]string
}

func (s *Service) names() *nameCache { return &nameCache{s: s, names: map[string]string{}} }

func (n *nameCache) name(ctx context.Context, id string) string {
	if name, ok := n.names[id]; ok {
		return name
	}
	name := ""
	if u, err := users.Get(ctx, pgread.On(ctx, n.s.pool), id); err == nil {
		name = u.Name
	}
	n.names[id] = name
	return name
}

func (n *nameCache) decision(ctx context.Context, d *kyc.Decision) DecisionView {
	rej := d.Rejections
	if rej == nil {
		rej = []kyc.Rejection{}
	}
	return DecisionView{Status: d.Status, At: d.At, Reviewer: Person{ID: d.ReviewerID, Name: n.name(ctx, d.ReviewerID)},
		Rejections: rej, Comment: d.Comment}
}
