package api

import (
	"context"
	"errors"

	"clearvest/api/apigen"
	"clearvest/domain/domainerr"
	"clearvest/domain/geo"
	"clearvest/platform/mail"
)

func (s *server) GetCountries(ctx context.Context, _ apigen.GetCountriesRequestObject) (apigen.GetCountriesResponseObject, error) {
	list := geo.Countries()
	out := make(apigen.GetCountries200JSONResponse, len(list))
	for i, c := range list {
		out[i] = apigen.Country{Name: c.Name, Code: c.Code, DialCode: &c.DialCode}
	}
	if w := exchangeFrom(ctx).w; w != nil {
		w.Header().Set("Cache-Control", "public, max-age=86400")
	}
	return out, nil
}

// The development mailbox shows what the file:// transport wrote, so that a developer (and the
// end-to-end tests) can follow verification and login-code links without a mail server. It
// exists only in development with a file transport: elsewhere the directory may hold other
// people's one-time links, and the endpoints answer 404 as if they did not exist.

var errNoMailbox = domainerr.New(domainerr.NotFound, "Not found")

func (s *server) mailbox() (string, error) {
	if s.production || s.mailboxDir == "" {
		return "", errNoMailbox
	}
	return s.mailboxDir, nil
}

func (s *server) ListDevMail(context.Context, apigen.ListDevMailRequestObject) (apigen.ListDevMailResponseObject, error) {
	dir, err := s.mailbox()
	if err != nil {
		return nil, err
	}
	list, err := mail.ListFileMailbox(dir, 0)
	if err != nil {
		return nil, err
	}
	out := make(apigen.ListDevMail200JSONResponse, len(list))
	for i, m := range list {
		out[i] = apigen.DevMailSummary{Id: m.ID, To: m.To, Subject: m.Subject, Date: m.Date}
	}
	return out, nil
}

func (s *server) GetDevMail(_ context.Context, req apigen.GetDevMailRequestObject) (apigen.GetDevMailResponseObject, error) {
	dir, err := s.mailbox()
	if err != nil {
		return nil, err
	}
	m, err := mail.ReadFileMailbox(dir, req.Id)
	if errors.Is(err, mail.ErrNoSuchMessage) {
		return nil, errNoMailbox
	}
	if err != nil {
		return nil, err
	}
	return apigen.GetDevMail200JSONResponse{Id: m.ID, To: m.To, Subject: m.Subject, Date: m.Date, Text: m.Text, Html: m.HTML}, nil
}
