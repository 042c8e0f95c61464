package accounts

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"regexp"
	"strings"

	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/platform/blob"
)

// PhotoURLPrefix is where profile photos are served (GET /api/users/photo/{name}).
const PhotoURLPrefix = "/api/users/photo/"

const photoDir = "photos/"

// photoName matches the names UploadPhoto gives: 22 random URL-safe characters and the type.
var photoName = regexp.MustCompile(`^[A-Za-z0-9_-]{22}\.(jpg|png)$`)

// ErrPhotoNotYours refuses a profile photo the user did not upload.
var ErrPhotoNotYours = domainerr.Field("photo", "Please upload your photo with the upload button; a profile can only show a photo you uploaded.")

// UpdateProfile changes the signed-in user's own profile. Fields not given keep their value;
// the e-mail is not part of the profile.
//
// A photo may only be removed ("") or left as it is. A new photo comes only through UploadPhoto,
// which stores the file and sets it in one step, so every photo a profile shows is one its owner
// uploaded: never another user's photo (which would keep it alive after they replaced it, and
// show it under someone else's name) and never an address elsewhere (a tracking pixel).
func (s *Service) UpdateProfile(ctx context.Context, a Actor, in ProfileInput) (User, int64, error) {
	var country string
	if in.Country != nil && strings.TrimSpace(*in.Country) != "" {
		code, err := countryCode(*in.Country)
		if err != nil {
			return User{}, 0, err
		}
		country = code
	}
	var out loaded
	removed := ""
	pos, err := s.submitUser(ctx, metaFor(a), a.UserID, func(u *unit, user loaded) error {
		p := user.Profile()
		if in.Photo != nil && *in.Photo != "" && *in.Photo != p.Photo {
			return ErrPhotoNotYours
		}
		removed = ""
		if in.Photo != nil && *in.Photo == "" {
			removed = p.Photo
		}
		if in.Name != nil {
			p.Name = *in.Name
		}
		if in.Phone != nil {
			p.Phone = *in.Phone
		}
		if in.Bio != nil {
			p.Bio = *in.Bio
		}
		if in.Country != nil {
			p.Country = country
		}
		if in.Photo != nil {
			p.Photo = *in.Photo
		}
		if err := user.UpdateProfile(p); err != nil {
			return err
		}
		out = user
		return nil
	})
	if err != nil {
		return User{}, 0, err
	}
	s.deletePhoto(ctx, removed)
	return view(out), pos, nil
}

// SetLanguage records the language the user reads in; their e-mails are written in it.
func (s *Service) SetLanguage(ctx context.Context, a Actor, language string) (int64, error) {
	if !identity.ValidLanguage(language) {
		return 0, identity.ErrInvalidLanguage
	}
	return s.submitUser(ctx, metaFor(a), a.UserID, func(u *unit, user loaded) error {
		return user.SetLanguage(language)
	})
}

// UploadPhoto makes an uploaded image the user's photo. The image is re-encoded (see
// processPhoto) and stored under a random name; the old photo is deleted once the new one is
// in the profile.
func (s *Service) UploadPhoto(ctx context.Context, a Actor, r io.Reader) (User, int64, error) {
	photo, err := processPhoto(r)
	if err != nil {
		return User{}, 0, err
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	name := base64.RawURLEncoding.EncodeToString(b) + "." + photo.ext
	if err := s.blobs.Put(ctx, photoDir+name, bytes.NewReader(photo.data)); err != nil {
		return User{}, 0, err
	}
	old := ""
	var out loaded
	pos, err := s.submitUser(ctx, metaFor(a), a.UserID, func(u *unit, user loaded) error {
		p := user.Profile()
		old, p.Photo = p.Photo, PhotoURLPrefix+name
		if err := user.UpdateProfile(p); err != nil {
			return err
		}
		out = user
		return nil
	})
	if err != nil {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), photoDir+name)
		return User{}, 0, err
	}
	s.deletePhoto(ctx, old)
	return view(out), pos, nil
}

// deletePhoto removes a photo file that no profile uses any more; failing to is only logged
// (an orphan file is untidy, not harmful).
func (s *Service) deletePhoto(ctx context.Context, url string) {
	name, ok := strings.CutPrefix(url, PhotoURLPrefix)
	if !ok || !photoName.MatchString(name) {
		return
	}
	if err := s.blobs.Delete(context.WithoutCancel(ctx), photoDir+name); err != nil {
		s.log.WarnContext(ctx, "accounts: deleting an old photo failed", "err", err)
	}
}

var errPhotoNotFound = domainerr.New(domainerr.NotFound, "Photo not found")

// Photo returns a stored profile photo and its content type.
func (s *Service) Photo(ctx context.Context, name string) ([]byte, string, error) {
	if !photoName.MatchString(name) {
		return nil, "", errPhotoNotFound
	}
	f, _, err := s.blobs.Open(ctx, photoDir+name)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, "", errPhotoNotFound
	}
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPhotoBytes))
	if err != nil {
		return nil, "", err
	}
	contentType := "image/jpeg"
	if strings.HasSuffix(name, ".png") {
		contentType = "image/png"
	}
	return data, contentType, nil
}
