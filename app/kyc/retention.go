package kyc

import (
	"context"
	"fmt"
	"time"

	"clearvest/app/command"
	"clearvest/domain/kyc"
	"clearvest/eventstore"
	"clearvest/projections/users"
)

// Deleted reports what a retention run deleted for one user.
type Deleted struct {
	UserID    string
	Reason    string
	Documents []kyc.DocumentRef
}

// Purge deletes the document files of closed accounts, and of submissions decided more than
// olderThan ago, and records each deletion on the user's stream (kyc.documents_deleted), so
// the case shows the files as deleted and downloads answer 410. Files go first: a run that
// stops between the two finds the same documents again next time, and deleting a missing file
// is not an error.
func (s *Service) Purge(ctx context.Context, olderThan time.Duration) ([]Deleted, error) {
	if olderThan <= 0 {
		return nil, fmt.Errorf("kyc: purge: the retention period must be positive, not %s", olderThan)
	}
	ids, err := users.KYCRetentionCandidates(ctx, s.pool)
	if err != nil {
		return nil, err
	}
	cutoff := s.clock.Now().Add(-olderThan)
	var out []Deleted
	for _, id := range ids {
		d, err := s.purgeUser(ctx, id, cutoff)
		if err != nil {
			return out, fmt.Errorf("kyc: purge %s: %w", id, err)
		}
		if len(d.Documents) > 0 {
			out = append(out, d)
		}
	}
	return out, nil
}

// DeleteClosedAccountFiles deletes every document file of a closed account. Closing an account
// destroys the user's key, which already makes the files unreadable; this removes them too.
// The accounts service calls it after a closure commits.
func (s *Service) DeleteClosedAccountFiles(ctx context.Context, userID string) error {
	_, err := s.purgeUser(ctx, userID, time.Time{})
	return err
}

func (s *Service) purgeUser(ctx context.Context, userID string, cutoff time.Time) (Deleted, error) {
	userID, err := parseUser(userID)
	if err != nil {
		return Deleted{}, err
	}
	c, err := s.load(ctx, userID)
	if err != nil {
		return Deleted{}, err
	}
	out := Deleted{UserID: userID, Reason: kyc.DeletedRetention}
	switch {
	case c.Closed():
		out.Reason, out.Documents = kyc.DeletedClosed, c.Stored(time.Time{})
	case cutoff.IsZero():
		return Deleted{}, nil // only a closed account loses everything at once
	case c.Status() == kyc.StatusApproved || c.Status() == kyc.StatusRejected:
		out.Documents = c.Stored(cutoff)
	}
	if len(out.Documents) == 0 {
		return Deleted{}, nil
	}
	for _, ref := range out.Documents {
		d, _ := c.Document(ref.Submission, ref.Side)
		if err := s.files.Delete(ctx, d.Key); err != nil {
			return Deleted{}, err
		}
	}
	// No client address: this is the system acting, and a closed user has no key to seal one.
	_, err = command.Execute(ctx, s.commands, stream(userID), kyc.New, eventstore.Metadata{ActorRole: "system"},
		func(c *kyc.Case) error {
			c.DeleteDocuments(out.Documents, out.Reason, s.clock.Now())
			return nil
		})
	if err != nil {
		return Deleted{}, err
	}
	return out, nil
}
