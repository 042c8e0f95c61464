package kyc

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // image.DecodeConfig of GIF documents
	_ "image/jpeg" // and of JPEG
	_ "image/png"  // and of PNG
	"io"
	"mime/multipart"
	"net/http"

	"github.com/gabriel-vasile/mimetype"
	_ "golang.org/x/image/bmp"  // image.DecodeConfig of BMP documents
	_ "golang.org/x/image/webp" // and of WebP

	"clearvest/app/command"
	"clearvest/domain/kyc"
)

// headBytes is how much of a file is read before it is stored: enough for its type (mimetype
// reads the first 3 KiB) and, for an image, for the header that gives its size (a JPEG's comes
// after its metadata segments).
const headBytes = 64 << 10

// Upload streams the documents of a multipart body into storage and records the submission.
// Parts are read one after the other, each straight into the file store: nothing is held in
// memory but the first few kilobytes that decide its type. File names and declared types are
// ignored. Whatever fails (a bad second file, a rule of the case, a conflicting append), the
// files stored by this request are deleted again, so a failed request leaves nothing behind.
//
// idempotencyKey, when set, goes into the event's metadata with a hash of the files, so a
// request repeated after its answer was lost finds its own submission instead of a 409.
func (s *Service) Upload(ctx context.Context, a Actor, mr *multipart.Reader, idempotencyKey string) (Uploaded, error) {
	userID, err := parseUser(a.UserID)
	if err != nil {
		return Uploaded{}, err
	}
	if idempotencyKey == "" {
		// Refused before the files are read when the answer cannot depend on them.
		c, err := s.load(ctx, userID)
		if err != nil {
			return Uploaded{}, err
		}
		if len(c.Resubmit()) == 0 || c.Closed() || !c.Registered() {
			return Uploaded{}, c.Submit(nil, s.clock.Now())
		}
	}
	var stored []kyc.Document
	keep := false
	defer func() {
		if !keep {
			s.deleteFiles(context.WithoutCancel(ctx), stored)
		}
	}()
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Uploaded{}, readError(err)
		}
		d, err := s.storePart(ctx, userID, p, stored)
		p.Close()
		if err != nil {
			return Uploaded{}, err
		}
		stored = append(stored, d)
	}
	if err := s.prepareKeys(a.UserID); err != nil {
		return Uploaded{}, err
	}
	meta := metaFor(a)
	if idempotencyKey != "" {
		meta.IdempotencyKey, meta.RequestHash = idempotencyKey, requestHash(stored)
	}
	res, err := command.Execute(ctx, s.commands, stream(userID), kyc.New, meta, func(c *kyc.Case) error {
		return c.Submit(stored, s.clock.Now())
	})
	if err != nil {
		return Uploaded{}, err
	}
	// A replay answers with the first request's submission; this request's copies go.
	keep = !res.IdempotentReplay
	view, err := s.MyCase(ctx, Actor{UserID: userID})
	return Uploaded{Case: view, Position: res.Position, Replayed: res.IdempotentReplay}, err
}

// Uploaded is what an upload did: the case after it, the position of its event, and whether it
// was the replay of an earlier request with the same Idempotency-Key.
type Uploaded struct {
	Case     MyCase
	Position int64
	Replayed bool
}

// storePart checks one part and streams it into a new file under a random name.
func (s *Service) storePart(ctx context.Context, userID string, p *multipart.Part, before []kyc.Document) (kyc.Document, error) {
	side := kyc.Side(p.FormName())
	if !side.Valid() {
		return kyc.Document{}, ErrUnknownPart
	}
	for _, d := range before {
		if d.Side == side {
			return kyc.Document{}, kyc.ErrDuplicateSide
		}
	}
	head := make([]byte, headBytes)
	n, err := io.ReadFull(p, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return kyc.Document{}, readError(err)
	}
	head = head[:n]
	if n == 0 {
		return kyc.Document{}, ErrEmptyFile
	}
	contentType := detect(head)
	if contentType == "" {
		return kyc.Document{}, kyc.ErrFileType
	}
	if err := checkPixels(head); err != nil {
		return kyc.Document{}, err
	}
	key, err := newKey()
	if err != nil {
		return kyc.Document{}, err
	}
	body := &capped{r: io.MultiReader(bytes.NewReader(head), p), left: kyc.MaxFileBytes}
	w, err := s.files.Put(ctx, key, userID, body)
	if err != nil {
		// The store keeps nothing of a failed read; a delete covers a store that failed after.
		s.deleteFiles(context.WithoutCancel(ctx), []kyc.Document{{Key: key}})
		if body.over {
			return kyc.Document{}, kyc.ErrFileTooLarge
		}
		return kyc.Document{}, readError(err)
	}
	return kyc.Document{Side: side, Key: key, ContentType: contentType, Size: w.Size, SHA256: w.SHA256}, nil
}

// detect decides a file's type from its first bytes, or "" when it is not one we accept.
func detect(head []byte) string {
	m := mimetype.Detect(head)
	for _, t := range kyc.AllowedTypes {
		if m.Is(t) {
			return t
		}
	}
	return ""
}

// checkPixels refuses an image whose header, within the file's first headBytes, declares more
// than kyc.MaxImagePixels. Only the header is read (image.DecodeConfig), never the pixels. A
// header that cannot be read from the head (a PDF, HEIC, a JPEG with more metadata than that) is
// left to the reviewer, as before.
func checkPixels(head []byte) error {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(head))
	if err != nil {
		return nil
	}
	if int64(cfg.Width)*int64(cfg.Height) > kyc.MaxImagePixels {
		return kyc.ErrImageTooLarge
	}
	return nil
}

// readError classifies a failure to read the request: a body over the route's limit is a 413
// with the upload's own message, anything else the client's broken upload.
func readError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return kyc.ErrFileTooLarge
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return ErrUnreadable.Wrap(err)
}

// capped fails once more than left bytes come through, so a file over the limit is refused
// after reading one byte too many rather than after reading all of it.
type capped struct {
	r    io.Reader
	left int64
	over bool
}

var errTooLarge = errors.New("kyc: file over the size limit")

func (c *capped) Read(p []byte) (int, error) {
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		c.over = true
		return 0, errTooLarge
	}
	return n, err
}

// newKey is a fresh, unguessable storage key: the client never names a file.
func newKey() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("kyc: random key: %w", err)
	}
	return "kyc/" + base64.RawURLEncoding.EncodeToString(b), nil
}

// requestHash identifies an upload by its files, for the Idempotency-Key check: the same key
// with other files is another request.
func requestHash(docs []kyc.Document) string {
	h := sha256.New()
	for _, d := range docs {
		fmt.Fprintf(h, "%s:%s:%d\n", d.Side, d.SHA256, d.Size)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// deleteFiles removes stored files, logging what could not be removed (a retention run finds
// what a failed request left only if it was recorded, so say it loudly).
func (s *Service) deleteFiles(ctx context.Context, docs []kyc.Document) {
	for _, d := range docs {
		if err := s.files.Delete(ctx, d.Key); err != nil {
			s.log.ErrorContext(ctx, "kyc: deleting a document file failed", "key", d.Key, "err", err)
		}
	}
}
