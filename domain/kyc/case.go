// Package kyc is the identity check (know your customer): a user sends photos or scans of the
// front and back of an identity document, staff approve or reject them with a reason per
// document, and only an approved user with a verified e-mail address may invest.
//
// The Case aggregate lives on the user's own stream ("user-<id>"): it applies the identity
// events it needs (registration, e-mail verification, closure) and the KYC events, and ignores
// the rest, as identity.User ignores the KYC events.
//
// Rules (docs/kyc.md):
//   - Status goes Not Submitted → Pending → Approved or Rejected; a re-upload after a rejection
//     makes the case Pending again, as submission n+1.
//   - The first submission carries both sides. After a rejection exactly the rejected sides are
//     sent again; the others carry over.
//   - Nothing is sent while a submission waits for review or once the identity is approved.
//   - Only a pending submission is decided, once, and never by the user it is about.
//   - A rejection names at least one document, each once, with a known reason, and a comment of
//     at most 1000 characters.
//   - A closed account accepts no upload or decision.
//
// Who decided is part of the decision events (the reviewer id), because a rule depends on it.
package kyc

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"clearvest/domain/aggregate"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/textcheck"
)

// Status is where a case stands. The strings are the API's.
type Status string

const (
	StatusNotSubmitted Status = "Not Submitted"
	StatusPending      Status = "Pending"
	StatusApproved     Status = "Approved"
	StatusRejected     Status = "Rejected"
)

// Side is one side of an identity document.
type Side string

const (
	SideFront Side = "front"
	SideBack  Side = "back"
)

// Sides are both sides, in the order they are shown.
var Sides = []Side{SideFront, SideBack}

// Valid reports whether s is front or back.
func (s Side) Valid() bool { return s == SideFront || s == SideBack }

// Reason is why a document was refused.
type Reason string

const (
	ReasonBlurry      Reason = "blurry"
	ReasonCutOff      Reason = "cut_off"
	ReasonGlare       Reason = "glare"
	ReasonExpired     Reason = "expired"
	ReasonMismatch    Reason = "mismatch"
	ReasonNotAccepted Reason = "not_accepted"
	ReasonMissing     Reason = "missing"
	ReasonOther       Reason = "other"
)

// reasonText words each reason for the user (e-mails, the upload page).
var reasonText = map[Reason]string{
	ReasonBlurry:      "The image is blurry or unreadable.",
	ReasonCutOff:      "Edges or corners of the document are cut off.",
	ReasonGlare:       "Glare or reflections hide part of the document.",
	ReasonExpired:     "The document has expired.",
	ReasonMismatch:    "The document does not match the name on your account.",
	ReasonNotAccepted: "This is not an accepted identity document.",
	ReasonMissing:     "The page sent is not this side of the document.",
	ReasonOther:       "See the reviewer's comment.",
}

// Valid reports whether r is one of the known reasons.
func (r Reason) Valid() bool { _, ok := reasonText[r]; return ok }

// Text is the reason in plain words.
func (r Reason) Text() string { return reasonText[r] }

// Limits.
const (
	// MaxFileBytes is the largest document accepted (10 MiB).
	MaxFileBytes = 10 << 20
	// MaxCommentRunes bounds a rejection's comment.
	MaxCommentRunes = 1000
	// MaxImagePixels bounds an image document's canvas (40 megapixels: twice a 600 dpi scan of
	// an A4 page), read from its header, so a small file declaring a huge canvas never reaches
	// a reviewer's browser.
	MaxImagePixels = 40_000_000
)

// AllowedTypes are the content types a document may have, as detected from its content.
var AllowedTypes = []string{
	"image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp", "image/heic", "image/heif", "application/pdf",
}

// Errors. Their messages are shown to the user as they are.
var (
	ErrBothRequired     = domainerr.New(domainerr.Invalid, "Please upload both front and back documents.")
	ErrPending          = domainerr.New(domainerr.Conflict, "Your documents are already being reviewed.")
	ErrApproved         = domainerr.New(domainerr.Conflict, "Your identity is already verified.")
	ErrDecided          = domainerr.New(domainerr.Conflict, "This identity check was already decided.")
	ErrOwnCase          = domainerr.New(domainerr.RuleBroken, "You cannot decide your own identity check.")
	ErrResubmit         = domainerr.New(domainerr.Invalid, "Please upload again only the rejected documents.")
	ErrDuplicateSide    = domainerr.New(domainerr.Invalid, "Each document can be sent only once.")
	ErrInvalidSide      = domainerr.New(domainerr.Invalid, "Documents are either front or back.")
	ErrInvalidFile      = domainerr.New(domainerr.Invalid, "This document could not be stored. Please try again.")
	ErrFileTooLarge     = domainerr.New(domainerr.TooLarge, "File size must be less than 10MB.")
	ErrImageTooLarge    = domainerr.New(domainerr.TooLarge, "This image is too large: documents may have at most 40 megapixels. Please upload a smaller scan or photo.")
	ErrFileType         = domainerr.New(domainerr.UnsupportedMedia, "Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.")
	ErrNoRejections     = domainerr.New(domainerr.Invalid, "Please choose at least one document to reject.")
	ErrDuplicateRej     = domainerr.New(domainerr.Invalid, "Each document can be rejected only once.")
	ErrInvalidReason    = domainerr.New(domainerr.Invalid, "Please choose a valid reason for each rejected document.")
	ErrCommentTooLong   = domainerr.New(domainerr.Invalid, "The comment must be at most 1000 characters.")
	ErrCommentInvisible = textcheck.Refusal("comment", "The comment")
	ErrInvalidStaffID   = domainerr.New(domainerr.Invalid, "Invalid staff id")
)

// SubmissionRecord is one submission as the case remembers it, with its decision if any.
type SubmissionRecord struct {
	Number    int
	At        time.Time
	Documents []Document
	Decision  *Decision
}

// Decision is what a reviewer decided about a submission.
type Decision struct {
	Status     Status // StatusApproved or StatusRejected
	ReviewerID string
	Rejections []Rejection
	Comment    string
	At         time.Time
}

// OnFile is a document currently on file with the submission it came with.
type OnFile struct {
	Document
	Submission int
}

// Case is the aggregate. Create it with New and load the user's stream into it.
type Case struct {
	aggregate.Root
	userID     string
	registered bool
	verified   bool
	closed     bool
	email      string
	name       string
	language   string

	status      Status
	submissions []SubmissionRecord
	current     map[Side]OnFile
	rejected    []Side
	deleted     map[DocumentRef]bool
}

// New returns an empty case, ready to load history into.
func New() *Case {
	return &Case{status: StatusNotSubmitted, current: map[Side]OnFile{}, deleted: map[DocumentRef]bool{}}
}

// Submit records an upload of docs at time at. The files are already stored; the caller
// deletes them when Submit refuses.
func (c *Case) Submit(docs []Document, at time.Time) error {
	if err := c.open(); err != nil {
		return err
	}
	switch c.status {
	case StatusPending:
		return ErrPending
	case StatusApproved:
		return ErrApproved
	}
	sent := make([]Side, 0, len(docs))
	for _, d := range docs {
		if !d.Side.Valid() {
			return ErrInvalidSide
		}
		if slices.Contains(sent, d.Side) {
			return ErrDuplicateSide
		}
		if err := validateDocument(d); err != nil {
			return err
		}
		sent = append(sent, d.Side)
	}
	want := c.Resubmit()
	if !sameSides(sent, want) {
		if len(want) == len(Sides) {
			return ErrBothRequired
		}
		return ErrResubmit.WithMessage(resubmitMessage(want))
	}
	ordered := slices.Clone(docs)
	slices.SortFunc(ordered, func(a, b Document) int { return sideIndex(a.Side) - sideIndex(b.Side) })
	aggregate.Raise(c, Submitted{Submission: c.Submission() + 1, Documents: ordered, At: at.UTC()})
	return nil
}

func validateDocument(d Document) error {
	switch {
	case d.Size <= 0:
		return ErrInvalidFile
	case d.Size > MaxFileBytes:
		return ErrFileTooLarge
	case !slices.Contains(AllowedTypes, d.ContentType):
		return ErrFileType
	case d.Key == "" || len(d.SHA256) != 64:
		return ErrInvalidFile
	}
	return nil
}

func resubmitMessage(want []Side) string {
	names := make([]string, len(want))
	for i, s := range want {
		names[i] = string(s)
	}
	return fmt.Sprintf("Please upload again only the rejected document (%s); the other one is kept.", strings.Join(names, " and "))
}

// Approve accepts the pending submission on behalf of reviewerID. submission, when not 0, is
// the one the reviewer looked at; another one pending now means someone else decided first.
func (c *Case) Approve(reviewerID string, submission int, at time.Time) error {
	if err := c.decidable(reviewerID, submission); err != nil {
		return err
	}
	aggregate.Raise(c, Approved{Submission: c.Submission(), ReviewerID: reviewerID, At: at.UTC()})
	return nil
}

// Reject refuses documents of the pending submission on behalf of reviewerID, with a reason for
// each and an optional comment for the user.
func (c *Case) Reject(reviewerID string, submission int, rejections []Rejection, comment string, at time.Time) error {
	if err := c.decidable(reviewerID, submission); err != nil {
		return err
	}
	if len(rejections) == 0 {
		return ErrNoRejections
	}
	var seen []Side
	for _, r := range rejections {
		if !r.Side.Valid() {
			return ErrInvalidSide
		}
		if slices.Contains(seen, r.Side) {
			return ErrDuplicateRej
		}
		if !r.Reason.Valid() {
			return ErrInvalidReason
		}
		seen = append(seen, r.Side)
	}
	comment = strings.TrimSpace(comment)
	if !textcheck.MultiLine(comment) {
		return ErrCommentInvisible
	}
	if utf8.RuneCountInString(comment) > MaxCommentRunes {
		return ErrCommentTooLong
	}
	ordered := slices.Clone(rejections)
	slices.SortFunc(ordered, func(a, b Rejection) int { return sideIndex(a.Side) - sideIndex(b.Side) })
	aggregate.Raise(c, Rejected{Submission: c.Submission(), ReviewerID: reviewerID, Documents: ordered, Comment: comment, At: at.UTC()})
	return nil
}

func (c *Case) decidable(reviewerID string, submission int) error {
	if err := c.open(); err != nil {
		return err
	}
	if strings.TrimSpace(reviewerID) == "" {
		return ErrInvalidStaffID
	}
	if reviewerID == c.userID {
		return ErrOwnCase
	}
	if c.status != StatusPending || (submission != 0 && submission != c.Submission()) {
		return ErrDecided
	}
	return nil
}

// RecordView records that staffID downloaded a document. The caller checked that the document
// exists and its file is still there.
func (c *Case) RecordView(staffID string, submission int, side Side) error {
	if !c.registered {
		return identity.ErrNotRegistered
	}
	if strings.TrimSpace(staffID) == "" {
		return ErrInvalidStaffID
	}
	if _, ok := c.Document(submission, side); !ok {
		return ErrNoDocument
	}
	aggregate.Raise(c, DocumentViewed{Side: side, Submission: submission, StaffID: staffID})
	return nil
}

// ErrNoDocument answers for a document that does not exist.
var ErrNoDocument = domainerr.New(domainerr.NotFound, "Document not found")

// DeleteDocuments records that the files of refs were deleted, for reason. Documents already
// deleted or unknown are left out; when nothing is left, nothing is recorded. It is allowed on
// a closed account: deleting files is what closure asks for.
func (c *Case) DeleteDocuments(refs []DocumentRef, reason string, at time.Time) {
	var out []DocumentRef
	for _, r := range refs {
		if _, ok := c.Document(r.Submission, r.Side); !ok || c.deleted[r] || slices.Contains(out, r) {
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return
	}
	aggregate.Raise(c, DocumentsDeleted{Documents: out, Reason: reason, At: at.UTC()})
}

// Stored lists the documents whose files have not been deleted. decidedBefore, when not zero,
// keeps only those of submissions decided before it, and never a document a rejected case
// still has on file: the next submission carries it over, so a reviewer will need it again.
func (c *Case) Stored(decidedBefore time.Time) []DocumentRef {
	var out []DocumentRef
	for _, s := range c.submissions {
		if !decidedBefore.IsZero() && (s.Decision == nil || !s.Decision.At.Before(decidedBefore)) {
			continue
		}
		for _, d := range s.Documents {
			ref := DocumentRef{Submission: s.Number, Side: d.Side}
			if c.deleted[ref] || (!decidedBefore.IsZero() && c.status == StatusRejected && c.carriesOver(ref)) {
				continue
			}
			out = append(out, ref)
		}
	}
	return out
}

// carriesOver reports whether ref is on file for a side the next submission will not replace.
func (c *Case) carriesOver(ref DocumentRef) bool {
	cur, ok := c.current[ref.Side]
	return ok && cur.Submission == ref.Submission && !slices.Contains(c.rejected, ref.Side)
}

// open refuses commands to a user who does not exist or whose account is closed.
func (c *Case) open() error {
	switch {
	case !c.registered:
		return identity.ErrNotRegistered
	case c.closed:
		return identity.ErrClosed
	}
	return nil
}

func sameSides(a, b []Side) bool {
	if len(a) != len(b) {
		return false
	}
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

func sideIndex(s Side) int { return slices.Index(Sides, s) }

// UserID is the id of the user the case is about.
func (c *Case) UserID() string { return c.userID }

// Registered reports whether the user exists.
func (c *Case) Registered() bool { return c.registered }

// Closed reports whether the account was closed.
func (c *Case) Closed() bool { return c.closed }

// EmailVerified reports whether the user verified their e-mail address.
func (c *Case) EmailVerified() bool { return c.verified }

// Email and Name are the user's, for the decision e-mails.
func (c *Case) Email() string { return c.email }

// Language is the language the user reads in (identity.User.Language), for their e-mails.
func (c *Case) Language() string {
	if c.language == "" {
		return identity.DefaultLanguage
	}
	return c.language
}
func (c *Case) Name() string { return c.name }

// Status is where the case stands.
func (c *Case) Status() Status { return c.status }

// Submission is the latest submission's number, 0 before the first.
func (c *Case) Submission() int { return len(c.submissions) }

// Submissions are every submission, oldest first.
func (c *Case) Submissions() []SubmissionRecord { return slices.Clone(c.submissions) }

// OnFile is the documents on file now, front first.
func (c *Case) OnFile() []OnFile {
	var out []OnFile
	for _, s := range Sides {
		if d, ok := c.current[s]; ok {
			out = append(out, d)
		}
	}
	return out
}

// Resubmit is the sides the next upload must carry: both before the first, the rejected ones
// after a rejection, none otherwise.
func (c *Case) Resubmit() []Side {
	switch c.status {
	case StatusNotSubmitted:
		return slices.Clone(Sides)
	case StatusRejected:
		return slices.Clone(c.rejected)
	}
	return nil
}

// LastDecision is the latest submission's decision, or nil.
func (c *Case) LastDecision() *Decision {
	for i := len(c.submissions) - 1; i >= 0; i-- {
		if d := c.submissions[i].Decision; d != nil {
			return d
		}
	}
	return nil
}

// Document returns one document of one submission.
func (c *Case) Document(submission int, side Side) (Document, bool) {
	if submission < 1 || submission > len(c.submissions) {
		return Document{}, false
	}
	for _, d := range c.submissions[submission-1].Documents {
		if d.Side == side {
			return d, true
		}
	}
	return Document{}, false
}

// Deleted reports whether a document's file was deleted.
func (c *Case) Deleted(ref DocumentRef) bool { return c.deleted[ref] }

// Apply implements aggregate.Aggregate.
func (c *Case) Apply(e aggregate.Event) {
	switch e := e.(type) {
	case identity.Registered:
		c.userID, c.registered, c.email, c.name = e.UserID, true, e.Email, e.Name
	case identity.ProfileUpdated:
		c.name = e.Name
	case identity.LanguageChanged:
		c.language = e.Language
	case identity.EmailVerified:
		c.verified = true
	case identity.Closed:
		c.closed = true
	case Submitted:
		c.submissions = append(c.submissions, SubmissionRecord{Number: e.Submission, At: e.At, Documents: e.Documents})
		for _, d := range e.Documents {
			c.current[d.Side] = OnFile{Document: d, Submission: e.Submission}
		}
		c.status, c.rejected = StatusPending, nil
	case Approved:
		c.decide(e.Submission, &Decision{Status: StatusApproved, ReviewerID: e.ReviewerID, At: e.At})
		c.status = StatusApproved
	case Rejected:
		c.decide(e.Submission, &Decision{Status: StatusRejected, ReviewerID: e.ReviewerID, Rejections: e.Documents, Comment: e.Comment, At: e.At})
		c.status, c.rejected = StatusRejected, nil
		for _, r := range e.Documents {
			c.rejected = append(c.rejected, r.Side)
		}
	case DocumentsDeleted:
		for _, r := range e.Documents {
			c.deleted[r] = true
		}
	}
}

func (c *Case) decide(submission int, d *Decision) {
	if submission >= 1 && submission <= len(c.submissions) {
		c.submissions[submission-1].Decision = d
	}
}

// Gate refusals: why a user may not invest yet.
var (
	ErrInvestUnverified = domainerr.New(domainerr.Forbidden, "Please verify your email before investing.")
	ErrInvestNoKYC      = domainerr.New(domainerr.Forbidden, "Please upload your identity documents before investing.")
	ErrInvestPending    = domainerr.New(domainerr.Forbidden, "Your identity documents are being reviewed. You can invest once they are approved.")
	ErrInvestRejected   = domainerr.New(domainerr.Forbidden, "Your identity documents were rejected. Please upload them again before investing.")
)

// IdentityCheckCode is the response code of a withdrawal refused for the identity check, so
// the withdrawal page can link to it.
const IdentityCheckCode = "identity_check_required"

// Withdrawal gate refusals: why a user may not withdraw yet.
var (
	ErrWithdrawNoKYC = domainerr.Coded(domainerr.Forbidden, IdentityCheckCode,
		"Please complete your identity check before withdrawing.")
	ErrWithdrawPending = domainerr.Coded(domainerr.Forbidden, IdentityCheckCode,
		"Your identity documents are being reviewed. You can withdraw once they are approved.")
	ErrWithdrawRejected = domainerr.Coded(domainerr.Forbidden, IdentityCheckCode,
		"Your identity documents were rejected. Please upload them again before withdrawing.")
)

// MayWithdraw is the identity part of the check every withdrawal request makes (product rules,
// "withdrawals"): money leaves only for a person whose identity check was approved, so that it
// goes to whom the account belongs to. It returns why not, or nil.
func MayWithdraw(status Status) error {
	switch status {
	case StatusApproved:
		return nil
	case StatusPending:
		return ErrWithdrawPending
	case StatusRejected:
		return ErrWithdrawRejected
	}
	return ErrWithdrawNoKYC
}

// MayInvest is the check every investment start makes (product rules, "investments"): a
// verified e-mail address and an approved identity check. It returns why not, or nil.
func MayInvest(emailVerified bool, status Status) error {
	if !emailVerified {
		return ErrInvestUnverified
	}
	switch status {
	case StatusApproved:
		return nil
	case StatusPending:
		return ErrInvestPending
	case StatusRejected:
		return ErrInvestRejected
	}
	return ErrInvestNoKYC
}
