package kyc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"clearvest/app/command"
	"clearvest/domain/kyc"
	"clearvest/eventstore"
	"clearvest/platform/blob"
	"clearvest/platform/mail"
)

// uploadPage is where the UI lets a user send documents again.
const uploadPage = "/upload-kyc"

// accountPage is where an approved user goes next.
const accountPage = "/my-account"

// Approve accepts the pending submission of a user on behalf of a reviewer and e-mails the
// user, in one transaction. submission, when not 0, is the one the reviewer looked at.
func (s *Service) Approve(ctx context.Context, a Actor, userID string, submission int) (int64, error) {
	return s.decide(ctx, a, userID, func(c *kyc.Case) error {
		return c.Approve(a.UserID, submission, s.clock.Now())
	}, func(c *kyc.Case) (string, any) {
		return mail.TemplateKYCApproved, mail.KYCApprovedData{Name: c.Name(), Link: s.cfg.PublicURL + accountPage}
	})
}

// RejectInput is a rejection: the refused documents with reasons, a comment for the user, and
// the submission the reviewer looked at (0: the pending one).
type RejectInput struct {
	Submission int
	Documents  []kyc.Rejection
	Comment    string
}

// Reject refuses documents of the pending submission and e-mails the user the reasons, in one
// transaction.
func (s *Service) Reject(ctx context.Context, a Actor, userID string, in RejectInput) (int64, error) {
	return s.decide(ctx, a, userID, func(c *kyc.Case) error {
		return c.Reject(a.UserID, in.Submission, in.Documents, in.Comment, s.clock.Now())
	}, func(c *kyc.Case) (string, any) {
		d := c.LastDecision()
		data := mail.KYCRejectedData{Name: c.Name(), Link: s.cfg.PublicURL + uploadPage, Comment: d.Comment}
		for _, r := range d.Rejections {
			data.Documents = append(data.Documents, mail.KYCRejectedDocument{
				Document: sideIn(c.Language(), r.Side), Reason: reasonIn(c.Language(), r.Reason),
			})
		}
		return mail.TemplateKYCRejected, data
	})
}

// germanReasons words each reason for a German reader's e-mail, as kyc.Reason.Text does in
// English.
var germanReasons = map[kyc.Reason]string{
	kyc.ReasonBlurry:      "Das Bild ist unscharf oder nicht lesbar.",
	kyc.ReasonCutOff:      "Ränder oder Ecken des Dokuments sind abgeschnitten.",
	kyc.ReasonGlare:       "Spiegelungen oder Reflexe verdecken einen Teil des Dokuments.",
	kyc.ReasonExpired:     "Das Dokument ist abgelaufen.",
	kyc.ReasonMismatch:    "Das Dokument passt nicht zum Namen in Ihrem Konto.",
	kyc.ReasonNotAccepted: "Dies ist kein Ausweisdokument, das wir annehmen.",
	kyc.ReasonMissing:     "Die gesendete Seite ist nicht diese Seite des Dokuments.",
	kyc.ReasonOther:       "Siehe die Anmerkung der Prüferin oder des Prüfers.",
}

// reasonIn is the reason in the reader's language.
func reasonIn(lang string, r kyc.Reason) string {
	if text, ok := germanReasons[r]; ok && lang == "de" {
		return text
	}
	return r.Text()
}

// sideIn names the side of the document in the reader's language.
func sideIn(lang string, s kyc.Side) string {
	if lang == "de" {
		if s == kyc.SideFront {
			return "Vorderseite"
		}
		return "Rückseite"
	}
	return sideName(s)
}

func sideName(s kyc.Side) string {
	if s == kyc.SideFront {
		return "Front"
	}
	return "Back"
}

// decide runs one decision on a user's stream with command.Submit: the event and the e-mail go
// in one round trip and commit together, and a second reviewer deciding the same case at the
// same time finds it decided (409).
func (s *Service) decide(ctx context.Context, a Actor, userID string, rule func(*kyc.Case) error, message func(*kyc.Case) (string, any)) (int64, error) {
	userID, err := parseUser(userID)
	if err != nil {
		return 0, err
	}
	if err := s.prepareKeys(a.UserID, userID); err != nil {
		return 0, err
	}
	res, err := command.Submit(ctx, s.commands, stream(userID), kyc.New, metaFor(a),
		func(c *kyc.Case, w *command.Writes) error {
			if !c.Registered() {
				return ErrUserNotFound
			}
			if err := rule(c); err != nil {
				return err
			}
			template, data := message(c)
			subject, text, html, err := s.tmpl.RenderIn(c.Language(), template, data)
			if err != nil {
				return err
			}
			// One decision per submission, so this names the cause: a retried command mails once.
			dedupe := fmt.Sprintf("kyc/%s/%d/%s", userID, c.Submission(), template)
			sql, args, err := mail.EnqueueStatement(ctx, dedupe, mail.Message{To: c.Email(), Subject: subject, Text: text, HTML: html}, false)
			if err != nil {
				return err
			}
			w.Add(sql, args...)
			return nil
		})
	if err != nil {
		return 0, err
	}
	s.kick()
	return res.Position, nil
}

// DocumentFile is a document ready to stream. Close Body when done.
type DocumentFile struct {
	Body        io.ReadCloser
	ContentType string
	// Filename is made from the side and the type ("front.pdf"), never the user's.
	Filename string
	// Replayed: a repeat of an earlier fetch with the same idempotency key, whose view was
	// recorded then.
	Replayed bool
}

// viewHash tells one document fetch from another under the same idempotency key.
func viewHash(userID string, submission int, side kyc.Side) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("view:%s:%d:%s", userID, submission, side)))
	return hex.EncodeToString(sum[:])
}

// Document opens one document for the caller: staff, or the user it belongs to; anyone else
// gets 404, as for a document that does not exist. A staff view is recorded on the user's
// stream (their security log shows it) before anything is sent, by the same request that sends
// the file (a POST: a GET never records anything). With an idempotency key, a repeat of the same
// fetch records nothing more (Replayed) and still sends the file. 410 when the file was deleted
// or the account closed.
func (s *Service) Document(ctx context.Context, a Actor, userID string, submission int, side, idempotencyKey string) (DocumentFile, error) {
	userID, err := parseUser(userID)
	if err != nil {
		return DocumentFile{}, ErrDocNotFound
	}
	owner := a.UserID == userID
	if !owner && !a.Role.IsStaff() {
		return DocumentFile{}, ErrDocNotFound
	}
	c, err := s.load(ctx, userID)
	if err != nil {
		return DocumentFile{}, err
	}
	d, ok := c.Document(submission, kyc.Side(side))
	if !c.Registered() || !ok {
		return DocumentFile{}, ErrDocNotFound
	}
	if c.Closed() || c.Deleted(kyc.DocumentRef{Submission: submission, Side: d.Side}) {
		return DocumentFile{}, ErrDocGone
	}
	body, err := s.files.Open(ctx, d.Key, userID)
	if errors.Is(err, blob.ErrNotFound) || errors.Is(err, eventstore.ErrErased) {
		return DocumentFile{}, ErrDocGone.Wrap(err)
	}
	if err != nil {
		return DocumentFile{}, err
	}
	replayed := false
	if !owner {
		if err := s.prepareKeys(a.UserID); err != nil {
			body.Close()
			return DocumentFile{}, err
		}
		meta := metaFor(a)
		if idempotencyKey != "" {
			meta.IdempotencyKey, meta.RequestHash = idempotencyKey, viewHash(userID, submission, d.Side)
		}
		res, err := command.Execute(ctx, s.commands, stream(userID), kyc.New, meta, func(c *kyc.Case) error {
			return c.RecordView(a.UserID, submission, d.Side)
		})
		if err != nil {
			body.Close()
			return DocumentFile{}, err
		}
		replayed = res.IdempotentReplay
	}
	return DocumentFile{Body: body, ContentType: d.ContentType, Filename: string(d.Side) + "." + extension(d.ContentType), Replayed: replayed}, nil
}

func extension(contentType string) string {
	switch contentType {
	case "image/jpeg":
		return "jpg"
	case "application/pdf":
		return "pdf"
	}
	return strings.TrimPrefix(contentType, "image/")
}
