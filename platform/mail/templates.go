package mail

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	netmail "net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	texttemplate "text/template"
	"time"
)

// Template names, one per kind of message.
const (
	TemplateVerification     = "verification"      // VerificationData
	TemplateLoginCode        = "login_code"        // LoginCodeData
	TemplateNewDevice        = "new_device"        // NewDeviceData
	TemplatePasswordReset    = "password_reset"    // PasswordResetData
	TemplatePasswordChanged  = "password_changed"  // PasswordChangedData
	TemplateComposed         = "composed"          // ComposedData
	TemplateBroadcast        = "broadcast"         // BroadcastData
	TemplateKYCApproved      = "kyc_approved"      // KYCApprovedData
	TemplateKYCRejected      = "kyc_rejected"      // KYCRejectedData
	TemplateDepositConfirmed = "deposit_confirmed" // DepositConfirmedData
	TemplateDepositRejected  = "deposit_rejected"  // DepositRejectedData

	TemplateWithdrawalRequested = "withdrawal_requested" // WithdrawalRequestedData
	TemplateWithdrawalApproved  = "withdrawal_approved"  // WithdrawalApprovedData
	TemplateWithdrawalRejected  = "withdrawal_rejected"  // WithdrawalRejectedData

	// The four investment messages share InvestmentData.
	TemplateInvestmentRequested = "investment_requested"
	TemplateInvestmentApproved  = "investment_approved"
	TemplateInvestmentRejected  = "investment_rejected"
	TemplateInvestmentMatured   = "investment_matured"

	TemplateReferralBonus = "referral_bonus" // ReferralBonusData

	TemplateSupportReply = "support_reply" // SupportReplyData
)

// Branding is what every message says about the operator.
type Branding struct {
	Product      string // "Clearvest" when empty
	PublicURL    string // CLEARVEST_PUBLIC_URL: where the header and footer link to
	SupportEmail string // optional; offered in the footer and in security advice
}

// VerificationData fills TemplateVerification. ValidFor is optional; when set, the message
// says how long the link works.
type VerificationData struct {
	Name     string
	Link     string
	ValidFor time.Duration
}

// LoginCodeData fills TemplateLoginCode. The message states ValidFor, so it must be the
// lifetime the code really has.
type LoginCodeData struct {
	Name     string
	Code     string // six digits
	ValidFor time.Duration
}

// NewDeviceData fills TemplateNewDevice. SecureLink is the one-time "wasn't me" link that
// revokes every session and starts a password reset.
type NewDeviceData struct {
	Name       string
	Time       time.Time
	IP         string
	Device     string // a readable description, e.g. "Firefox on Windows"
	SecureLink string
}

// PasswordResetData fills TemplatePasswordReset.
type PasswordResetData struct {
	Name     string
	Link     string
	ValidFor time.Duration
}

// PasswordChangedData fills TemplatePasswordChanged. Without a SecureLink the advice points to
// the forgot-password page instead.
type PasswordChangedData struct {
	Name       string
	Time       time.Time
	SecureLink string
}

// ComposedData fills TemplateComposed: a message staff wrote. Message is plain text; blank
// lines separate paragraphs, and nothing in it is interpreted as HTML.
type ComposedData struct {
	Name    string
	Subject string
	Message string
}

// BroadcastData fills TemplateBroadcast: an e-mail staff composed in Markdown for one user, a
// role or every verified user. The HTML body is the Markdown rendered without raw HTML
// (RenderMarkdown); the plain-text body is the Markdown source, which reads as text.
type BroadcastData struct {
	Name     string
	Subject  string
	Markdown string
}

// SupportReplyData fills TemplateSupportReply: staff's answer to a message sent with the
// contact form, quoting it. Both are plain text; nothing in them is interpreted as HTML.
type SupportReplyData struct {
	Name     string
	Message  string
	Original string
}

// KYCApprovedData fills TemplateKYCApproved.
type KYCApprovedData struct {
	Name string
	Link string // where the user goes next (their account)
}

// KYCRejectedDocument is one refused document, in plain words.
type KYCRejectedDocument struct {
	Document string // "Front" or "Back"
	Reason   string // a sentence
}

// KYCRejectedData fills TemplateKYCRejected. Comment is the reviewer's free text, plain text.
type KYCRejectedData struct {
	Name      string
	Link      string // the upload page
	Documents []KYCRejectedDocument
	Comment   string
}

// ReferralBonusData fills TemplateReferralBonus. Amount is the bonus as the user reads it
// ("$5.00"); it names no one, as the referred user's name is theirs to share.
type ReferralBonusData struct {
	Name   string
	Amount string
	Link   string // the referrals page
}

// DepositConfirmedData fills TemplateDepositConfirmed. Received is the credited amount as the
// user reads it ("$1,000.00"); Notes is staff's free text, plain text.
type DepositConfirmedData struct {
	Name          string
	TransactionID string
	Received      string
	Asset         string
	Notes         string
	Link          string // the user's account
}

// DepositRejectedData fills TemplateDepositRejected. Amount is what the user said they sent
// ("$1,000.00"); Notes is staff's free text, plain text.
type DepositRejectedData struct {
	Name          string
	TransactionID string
	Amount        string
	Asset         string
	Notes         string
	Link          string // the user's account
}

// WithdrawalRequestedData fills TemplateWithdrawalRequested. Amounts are as the user reads
// them ("$1,000.00"): Amount is taken from the wallet, Fee is the schedule's and Receives is
// Amount − Fee.
type WithdrawalRequestedData struct {
	Name     string
	Amount   string
	Fee      string
	Receives string
	Asset    string
	Network  string // the network's name ("TRON")
	Address  string
	Link     string // the withdrawal's page
}

// WithdrawalApprovedData fills TemplateWithdrawalApproved. TxHash is the payout transaction.
type WithdrawalApprovedData struct {
	Name     string
	Amount   string
	Fee      string
	Receives string
	Asset    string
	Network  string
	Address  string
	TxHash   string
	Link     string
}

// WithdrawalRejectedData fills TemplateWithdrawalRejected. Reason is staff's free text, plain
// text; the amount is back in the wallet and no fee was charged.
type WithdrawalRejectedData struct {
	Name   string
	Amount string
	Reason string
	Link   string
}

// InvestmentData fills the investment templates. Amounts are as the user reads them
// ("$1,000.00"). Return, Payout and End are known once the investment is approved; Reason only
// on a rejection; ReinvestedAs, on a maturity, says the payout went into a new investment.
type InvestmentData struct {
	Name       string
	Plan       string
	Amount     string
	TermDays   int
	TermRate   string // percent for the whole term, e.g. "1.50%"
	APR        string // simple annualised rate in percent, e.g. "18.25%"
	Return     string
	Payout     string
	End        time.Time
	Reason     string
	Reinvested bool
	Link       string // the investment's page
}

//go:embed templates
var templateFS embed.FS

var templateNames = []string{
	TemplateVerification, TemplateLoginCode, TemplateNewDevice,
	TemplatePasswordReset, TemplatePasswordChanged, TemplateComposed, TemplateBroadcast, TemplateKYCApproved, TemplateKYCRejected,
	TemplateDepositConfirmed, TemplateDepositRejected,
	TemplateWithdrawalRequested, TemplateWithdrawalApproved, TemplateWithdrawalRejected,
	TemplateInvestmentRequested, TemplateInvestmentApproved, TemplateInvestmentRejected, TemplateInvestmentMatured,
	TemplateReferralBonus,
	TemplateSupportReply,
}

// Languages the messages are written in: English in templates/, every other language in
// templates/<language>/, each with every template of English. English is the default.
var Languages = []string{"en", "de"}

// DefaultLanguage is used for a recipient whose language is not known or not offered.
const DefaultLanguage = "en"

// Templates renders Clearvest's messages with one operator's branding, in each of Languages.
// It is safe for concurrent use.
type Templates struct {
	brand Branding
	text  map[string]*texttemplate.Template // by language + "/" + template name
	html  map[string]*htmltemplate.Template
}

func templateDir(lang string) string {
	if lang == DefaultLanguage {
		return "templates/"
	}
	return "templates/" + lang + "/"
}

// view is what the template files see: {{.Brand.Product}}, {{.Data.Link}}, …
type view struct {
	Brand     Branding
	Data      any
	Subject   string
	Preheader string
}

// NewTemplates parses the embedded templates for the given branding.
func NewTemplates(b Branding) (*Templates, error) {
	if b.Product = strings.TrimSpace(b.Product); b.Product == "" {
		b.Product = "Clearvest"
	}
	b.PublicURL = strings.TrimRight(strings.TrimSpace(b.PublicURL), "/")
	if err := checkLink(b.PublicURL); err != nil {
		return nil, fmt.Errorf("mail: branding: public URL: %w", err)
	}
	if b.SupportEmail = strings.TrimSpace(b.SupportEmail); b.SupportEmail != "" {
		a, err := netmail.ParseAddress(b.SupportEmail)
		if err != nil {
			return nil, fmt.Errorf("mail: branding: support e-mail %q: %w", b.SupportEmail, err)
		}
		b.SupportEmail = a.Address
	}

	t := &Templates{brand: b, text: map[string]*texttemplate.Template{}, html: map[string]*htmltemplate.Template{}}
	for _, lang := range Languages {
		dir := templateDir(lang)
		for _, name := range templateNames {
			tt, err := texttemplate.New(name).Funcs(textFuncs(lang)).ParseFS(templateFS, "templates/layout.txt", dir+"phrases.txt", dir+name+".txt")
			if err != nil {
				return nil, fmt.Errorf("mail: template %s (%s): %w", name, lang, err)
			}
			ht, err := htmltemplate.New(name).Funcs(htmlFuncs(lang)).ParseFS(templateFS, "templates/layout.html", dir+"phrases.html", dir+name+".html")
			if err != nil {
				return nil, fmt.Errorf("mail: template %s (%s): %w", name, lang, err)
			}
			if tt.Lookup("subject") == nil || tt.Lookup("body") == nil || ht.Lookup("body") == nil {
				return nil, fmt.Errorf("mail: template %s (%s): needs a subject and a body in %[1]s.txt and a body in %[1]s.html", name, lang)
			}
			t.text[lang+"/"+name], t.html[lang+"/"+name] = tt, ht
		}
	}
	return t, nil
}

// Render produces the subject and both bodies of a message in English. data must be the
// template's own type (VerificationData for TemplateVerification, and so on); links must be
// absolute http(s) URLs. Everything taken from data is escaped in the HTML body.
func (t *Templates) Render(name string, data any) (subject, text, html string, err error) {
	return t.RenderIn(DefaultLanguage, name, data)
}

// RenderIn is Render in the recipient's language; a language not offered gets English.
func (t *Templates) RenderIn(lang, name string, data any) (subject, text, html string, err error) {
	if !slices.Contains(Languages, lang) {
		lang = DefaultLanguage
	}
	key := lang + "/" + name
	tt, ok := t.text[key]
	if !ok {
		return "", "", "", fmt.Errorf("mail: no template %q", name)
	}
	if err := checkData(name, data); err != nil {
		return "", "", "", fmt.Errorf("mail: template %s: %w", name, err)
	}
	v := view{Brand: t.brand, Data: data}

	var buf bytes.Buffer
	if err := tt.ExecuteTemplate(&buf, "subject", v); err != nil {
		return "", "", "", fmt.Errorf("mail: template %s: subject: %w", name, err)
	}
	// One line, whatever the data held: a line break in a subject would start a new header.
	v.Subject = strings.Join(strings.Fields(buf.String()), " ")
	if v.Subject == "" {
		return "", "", "", fmt.Errorf("mail: template %s: empty subject", name)
	}
	if tt.Lookup("preheader") != nil {
		buf.Reset()
		if err := tt.ExecuteTemplate(&buf, "preheader", v); err != nil {
			return "", "", "", fmt.Errorf("mail: template %s: preheader: %w", name, err)
		}
		v.Preheader = strings.Join(strings.Fields(buf.String()), " ")
	}

	buf.Reset()
	if err := tt.ExecuteTemplate(&buf, "layout", v); err != nil {
		return "", "", "", fmt.Errorf("mail: template %s: text: %w", name, err)
	}
	text = buf.String()

	buf.Reset()
	if err := t.html[key].ExecuteTemplate(&buf, "layout", v); err != nil {
		return "", "", "", fmt.Errorf("mail: template %s: html: %w", name, err)
	}
	return v.Subject, text, buf.String(), nil
}

var sixDigits = regexp.MustCompile(`^[0-9]{6}$`)

// checkData refuses data that would render a misleading message: html/template would quietly
// replace a javascript: link with "#ZgotmplZ", and a missing lifetime would print nonsense.
func checkData(name string, data any) error {
	wrongType := func(want any) error {
		return fmt.Errorf("data is %T, want %T", data, want)
	}
	switch name {
	case TemplateVerification:
		d, ok := data.(VerificationData)
		if !ok {
			return wrongType(VerificationData{})
		}
		return checkLink(d.Link)
	case TemplateLoginCode:
		d, ok := data.(LoginCodeData)
		if !ok {
			return wrongType(LoginCodeData{})
		}
		if !sixDigits.MatchString(d.Code) {
			return errors.New("the code must be six digits")
		}
		return checkValidFor(d.ValidFor)
	case TemplateNewDevice:
		d, ok := data.(NewDeviceData)
		if !ok {
			return wrongType(NewDeviceData{})
		}
		if d.Time.IsZero() {
			return errors.New("no sign-in time")
		}
		return checkLink(d.SecureLink)
	case TemplatePasswordReset:
		d, ok := data.(PasswordResetData)
		if !ok {
			return wrongType(PasswordResetData{})
		}
		if err := checkLink(d.Link); err != nil {
			return err
		}
		return checkValidFor(d.ValidFor)
	case TemplatePasswordChanged:
		d, ok := data.(PasswordChangedData)
		if !ok {
			return wrongType(PasswordChangedData{})
		}
		if d.Time.IsZero() {
			return errors.New("no time of change")
		}
		if d.SecureLink != "" {
			return checkLink(d.SecureLink)
		}
		return nil
	case TemplateComposed:
		d, ok := data.(ComposedData)
		if !ok {
			return wrongType(ComposedData{})
		}
		if strings.TrimSpace(d.Subject) == "" || strings.TrimSpace(d.Message) == "" {
			return errors.New("a composed message needs a subject and a message")
		}
		return nil
	case TemplateBroadcast:
		d, ok := data.(BroadcastData)
		if !ok {
			return wrongType(BroadcastData{})
		}
		if strings.TrimSpace(d.Subject) == "" || strings.TrimSpace(d.Markdown) == "" {
			return errors.New("a staff e-mail needs a subject and a message")
		}
		return nil
	case TemplateSupportReply:
		d, ok := data.(SupportReplyData)
		if !ok {
			return wrongType(SupportReplyData{})
		}
		if strings.TrimSpace(d.Message) == "" {
			return errors.New("a support reply needs a message")
		}
		return nil
	case TemplateKYCApproved:
		d, ok := data.(KYCApprovedData)
		if !ok {
			return wrongType(KYCApprovedData{})
		}
		return checkLink(d.Link)
	case TemplateKYCRejected:
		d, ok := data.(KYCRejectedData)
		if !ok {
			return wrongType(KYCRejectedData{})
		}
		if len(d.Documents) == 0 {
			return errors.New("a rejection names at least one document")
		}
		return checkLink(d.Link)
	case TemplateDepositConfirmed:
		d, ok := data.(DepositConfirmedData)
		if !ok {
			return wrongType(DepositConfirmedData{})
		}
		if d.TransactionID == "" || d.Received == "" {
			return errors.New("a confirmation names the transaction and the amount received")
		}
		return checkLink(d.Link)
	case TemplateDepositRejected:
		d, ok := data.(DepositRejectedData)
		if !ok {
			return wrongType(DepositRejectedData{})
		}
		if d.TransactionID == "" {
			return errors.New("a rejection names the transaction")
		}
		return checkLink(d.Link)
	case TemplateWithdrawalRequested:
		d, ok := data.(WithdrawalRequestedData)
		if !ok {
			return wrongType(WithdrawalRequestedData{})
		}
		if d.Amount == "" || d.Fee == "" || d.Receives == "" || d.Address == "" {
			return errors.New("a withdrawal request names the amount, the fee, what is received and the address")
		}
		return checkLink(d.Link)
	case TemplateWithdrawalApproved:
		d, ok := data.(WithdrawalApprovedData)
		if !ok {
			return wrongType(WithdrawalApprovedData{})
		}
		if d.Receives == "" || d.TxHash == "" {
			return errors.New("an approval names what is received and the payout transaction")
		}
		return checkLink(d.Link)
	case TemplateReferralBonus:
		d, ok := data.(ReferralBonusData)
		if !ok {
			return wrongType(ReferralBonusData{})
		}
		if d.Amount == "" {
			return errors.New("a referral bonus names the amount")
		}
		return checkLink(d.Link)
	case TemplateWithdrawalRejected:
		d, ok := data.(WithdrawalRejectedData)
		if !ok {
			return wrongType(WithdrawalRejectedData{})
		}
		if d.Amount == "" || strings.TrimSpace(d.Reason) == "" {
			return errors.New("a withdrawal rejection names the amount and the reason")
		}
		return checkLink(d.Link)
	case TemplateInvestmentRequested, TemplateInvestmentApproved, TemplateInvestmentRejected, TemplateInvestmentMatured:
		d, ok := data.(InvestmentData)
		if !ok {
			return wrongType(InvestmentData{})
		}
		switch {
		case d.Plan == "" || d.Amount == "":
			return errors.New("an investment message names the plan and the amount")
		case (name == TemplateInvestmentApproved || name == TemplateInvestmentMatured) && (d.Payout == "" || d.Return == ""):
			return errors.New("an approval or a maturity states the return and the payout")
		case name == TemplateInvestmentApproved && d.End.IsZero():
			return errors.New("an approval states the end date")
		case name == TemplateInvestmentRejected && strings.TrimSpace(d.Reason) == "":
			return errors.New("a rejection states the reason")
		}
		return checkLink(d.Link)
	}
	return nil
}

func checkLink(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}

func checkValidFor(d time.Duration) error {
	if d <= 0 {
		return errors.New("no validity period (ValidFor)")
	}
	return nil
}

func textFuncs(lang string) texttemplate.FuncMap {
	return texttemplate.FuncMap{
		"duration": func(d time.Duration) string { return humanDuration(lang, d) },
		"when":     func(t time.Time) string { return humanTime(lang, t) },
	}
}

func htmlFuncs(lang string) htmltemplate.FuncMap {
	return htmltemplate.FuncMap{
		"duration":   func(d time.Duration) string { return humanDuration(lang, d) },
		"when":       func(t time.Time) string { return humanTime(lang, t) },
		"lang":       func() string { return lang },
		"button":     func(url, label string) button { return button{URL: url, Label: label} },
		"paragraphs": paragraphs,
		"markdown":   RenderMarkdown,
	}
}

type button struct{ URL, Label string }

// units names each unit of a lifetime, singular and plural, in each language.
var units = map[string]map[string][2]string{
	"en": {"day": {"day", "days"}, "hour": {"hour", "hours"}, "minute": {"minute", "minutes"}, "second": {"second", "seconds"}},
	// The German templates put a lifetime where these forms fit: "ist 2 Tage gültig", and
	// "läuft in 10 Minuten ab" only for codes, which live minutes.
	"de": {"day": {"Tag", "Tage"}, "hour": {"Stunde", "Stunden"}, "minute": {"Minute", "Minuten"}, "second": {"Sekunde", "Sekunden"}},
}

// humanDuration says a lifetime the way people do: "10 minutes", "1 hour", "2 days".
func humanDuration(lang string, d time.Duration) string {
	plural := func(n int64, unit string) string {
		names := units[lang][unit]
		if n == 1 {
			return "1 " + names[0]
		}
		return fmt.Sprintf("%d %s", n, names[1])
	}
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return plural(int64(d/(24*time.Hour)), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return plural(int64(d/time.Hour), "hour")
	case d >= time.Minute:
		return plural(int64(d.Round(time.Minute)/time.Minute), "minute")
	}
	return plural(max(int64(d.Round(time.Second)/time.Second), 1), "second")
}

var (
	germanWeekdays = [...]string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"}
	germanMonths   = [...]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"}
)

// humanTime is unambiguous for readers anywhere: no numeric dates, and the zone spelled out.
func humanTime(lang string, t time.Time) string {
	t = t.UTC()
	if lang == "de" {
		return fmt.Sprintf("%s, %d. %s %d um %s UTC", germanWeekdays[t.Weekday()], t.Day(), germanMonths[t.Month()-1], t.Year(), t.Format("15:04"))
	}
	return t.Format("Monday 2 January 2006 at 15:04 UTC")
}

var blankLine = regexp.MustCompile(`\n[ \t]*\n`)

// paragraphs turns a staff-written plain-text message into HTML: everything escaped, blank
// lines separating paragraphs, single line breaks kept.
func paragraphs(s string) htmltemplate.HTML {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	for _, p := range blankLine.Split(strings.TrimSpace(s), -1) {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		lines := strings.Split(p, "\n")
		for i, l := range lines {
			lines[i] = htmltemplate.HTMLEscapeString(strings.TrimRight(l, " \t"))
		}
		b.WriteString(`<p style="margin:0 0 16px 0;">`)
		b.WriteString(strings.Join(lines, "<br>\n"))
		b.WriteString("</p>\n")
	}
	return htmltemplate.HTML(b.String())
}
