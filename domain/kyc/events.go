package kyc

import (
	"time"

	"clearvest/domain/aggregate"
)

// Event type names. They are stored with every event and must never change. KYC events live on
// the user's own stream (identity.StreamCategory), beside the identity events.
const (
	TypeSubmitted        = "kyc.submitted"
	TypeApproved         = "kyc.approved"
	TypeRejected         = "kyc.rejected"
	TypeDocumentViewed   = "kyc.document_viewed"
	TypeDocumentsDeleted = "kyc.documents_deleted"
)

// Document is one stored identity document: where its (encrypted) file is and what it was when
// uploaded. ContentType was detected from the content, never taken from the client.
type Document struct {
	Side        Side   `json:"side"`
	Key         string `json:"key"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
}

// Submitted records one upload: the documents it carried (both sides the first time, the
// rejected ones afterwards) and its number, counting the user's submissions from 1.
type Submitted struct {
	Submission int        `json:"submission"`
	Documents  []Document `json:"documents"`
	At         time.Time  `json:"at"`
}

// Approved records that ReviewerID accepted submission Submission.
type Approved struct {
	Submission int       `json:"submission"`
	ReviewerID string    `json:"reviewerId"`
	At         time.Time `json:"at"`
}

// Rejection is why one document was refused.
type Rejection struct {
	Side   Side   `json:"side"`
	Reason Reason `json:"reason"`
}

// Rejected records that ReviewerID refused some documents of submission Submission. The
// comment is free text about the user, so it is sealed with their key.
type Rejected struct {
	Submission int         `json:"submission"`
	ReviewerID string      `json:"reviewerId"`
	Documents  []Rejection `json:"documents"`
	Comment    string      `json:"comment" pii:"true"`
	At         time.Time   `json:"at"`
}

// DocumentViewed records that a staff member downloaded one of the user's documents, so the
// user sees it in their security log.
type DocumentViewed struct {
	Side       Side   `json:"side"`
	Submission int    `json:"submission"`
	StaffID    string `json:"staffId"`
}

// DocumentRef names one document of one submission.
type DocumentRef struct {
	Submission int  `json:"submission"`
	Side       Side `json:"side"`
}

// Why documents were deleted.
const (
	DeletedRetention = "retention"      // decided longer ago than the retention period
	DeletedClosed    = "account_closed" // the account was closed
)

// DocumentsDeleted records that the files of these documents were deleted; the facts about
// them (type, size, hash, decisions) stay.
type DocumentsDeleted struct {
	Documents []DocumentRef `json:"documents"`
	Reason    string        `json:"reason"`
	At        time.Time     `json:"at"`
}

func (Submitted) EventName() string        { return TypeSubmitted }
func (Approved) EventName() string         { return TypeApproved }
func (Rejected) EventName() string         { return TypeRejected }
func (DocumentViewed) EventName() string   { return TypeDocumentViewed }
func (DocumentsDeleted) EventName() string { return TypeDocumentsDeleted }

// Events returns a zero value of every KYC event type.
func Events() []aggregate.Event {
	return []aggregate.Event{Submitted{}, Approved{}, Rejected{}, DocumentViewed{}, DocumentsDeleted{}}
}

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every KYC event type at its current schema version (all 1 so far).
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}
