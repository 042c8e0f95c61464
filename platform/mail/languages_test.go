package mail

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// sampleData is valid data for every template, each field set, so that a template leaving a
// field out shows in the comparison below.
func sampleData() map[string]any {
	const link = "https://clearvest.example.com/page/123"
	inv := InvestmentData{
		Name: "Ada", Plan: "Standard", Amount: "$1,000.00", TermDays: 30, TermRate: "1.50%", APR: "18.25%",
		Return: "$15.00", Payout: "$1,015.00", End: signInTime, Reason: "Not eligible", Link: link,
	}
	return map[string]any{
		TemplateVerification:    VerificationData{Name: "Ada", Link: link, ValidFor: 24 * time.Hour},
		TemplateLoginCode:       LoginCodeData{Name: "Ada", Code: "042137", ValidFor: 10 * time.Minute},
		TemplateNewDevice:       NewDeviceData{Name: "Ada", Time: signInTime, IP: "203.0.113.7", Device: "Firefox on Linux", SecureLink: link},
		TemplatePasswordReset:   PasswordResetData{Name: "Ada", Link: link, ValidFor: time.Hour},
		TemplatePasswordChanged: PasswordChangedData{Name: "Ada", Time: signInTime, SecureLink: link},
		TemplateComposed:        ComposedData{Name: "Ada", Subject: "News", Message: "A word from staff"},
		TemplateBroadcast:       BroadcastData{Name: "Ada", Subject: "News", Markdown: "A **word** from staff"},
		TemplateSupportReply:    SupportReplyData{Name: "Ada", Message: "Answer text", Original: "Question text"},
		TemplateKYCApproved:     KYCApprovedData{Name: "Ada", Link: link},
		TemplateKYCRejected: KYCRejectedData{Name: "Ada", Link: link, Comment: "Reviewer note",
			Documents: []KYCRejectedDocument{{Document: "Front", Reason: "Blurry"}}},
		TemplateDepositConfirmed: DepositConfirmedData{Name: "Ada", TransactionID: "DEP-1", Received: "$99.50", Asset: "USDT", Notes: "Fee", Link: link},
		TemplateDepositRejected:  DepositRejectedData{Name: "Ada", TransactionID: "DEP-1", Amount: "$99.50", Asset: "USDT", Notes: "None", Link: link},
		TemplateWithdrawalRequested: WithdrawalRequestedData{Name: "Ada", Amount: "$100.00", Fee: "$2.00", Receives: "$98.00",
			Asset: "USDT", Network: "TRON", Address: "TXYZ", Link: link},
		TemplateWithdrawalApproved: WithdrawalApprovedData{Name: "Ada", Amount: "$100.00", Fee: "$2.00", Receives: "$98.00",
			Asset: "USDT", Network: "TRON", Address: "TXYZ", TxHash: "0xabc", Link: link},
		TemplateWithdrawalRejected:  WithdrawalRejectedData{Name: "Ada", Amount: "$100.00", Reason: "Address unclear", Link: link},
		TemplateInvestmentRequested: inv,
		TemplateInvestmentApproved:  inv,
		TemplateInvestmentRejected:  inv,
		TemplateInvestmentMatured:   inv,
		TemplateReferralBonus:       ReferralBonusData{Name: "Ada", Amount: "$5.00", Link: link},
	}
}

// Words of the English frame that must not be left in another language's message.
var englishFrame = []string{"Hello", "This is an automatic message", "If the button does not work", "For help", "unknown", " UTC on ", "Monday", "January"}

// Every template renders in every language, in full: a subject, both bodies, no missing value,
// and, in another language than English, no English of the frame.
func TestEveryTemplateRendersInEveryLanguage(t *testing.T) {
	t.Parallel()
	tp := newTestTemplates(t)
	data := sampleData()
	for _, name := range templateNames {
		d, ok := data[name]
		if !ok {
			t.Fatalf("no sample data for %s", name)
		}
		enSubject, enText, _, err := tp.RenderIn("en", name, d)
		if err != nil {
			t.Fatalf("%s en: %v", name, err)
		}
		for _, lang := range Languages {
			subject, text, html, err := tp.RenderIn(lang, name, d)
			if err != nil {
				t.Errorf("%s %s: %v", name, lang, err)
				continue
			}
			if subject == "" || strings.TrimSpace(text) == "" || strings.TrimSpace(html) == "" {
				t.Errorf("%s %s: an empty part", name, lang)
			}
			for _, body := range []string{subject, text, html} {
				if strings.Contains(body, "<no value>") || strings.Contains(body, "%!") {
					t.Errorf("%s %s: a value is missing: %q", name, lang, body)
				}
			}
			if !strings.Contains(html, `<html lang="`+lang+`"`) {
				t.Errorf("%s %s: the HTML does not say its language", name, lang)
			}
			if lang == DefaultLanguage {
				continue
			}
			if name != TemplateComposed && name != TemplateBroadcast && (subject == enSubject || text == enText) {
				t.Errorf("%s %s: the same as English", name, lang)
			}
			for _, word := range englishFrame {
				if strings.Contains(text, word) || strings.Contains(html, word) {
					t.Errorf("%s %s: English left in: %q", name, lang, word)
				}
			}
		}
	}
}

var (
	definedBlock = regexp.MustCompile(`\{\{define "(\w+)"\}\}`)
	dataField    = regexp.MustCompile(`\.Data\.\w+|\.Brand\.\w+|template "\w+"|\{\{(?:range|with|if) [^}]+\}\}`)
)

// Each translation says everything English says: the same blocks (subject, preheader, body,
// the layout's phrases) and the same data, links and conditions, so no part of a message is lost
// in translation.
func TestTranslatedTemplatesCarryEverythingEnglishDoes(t *testing.T) {
	t.Parallel()
	english, err := fs.Glob(templateFS, "templates/*.*")
	if err != nil || len(english) == 0 {
		t.Fatalf("templates: %v", err)
	}
	uses := func(src string, re *regexp.Regexp) []string {
		var out []string
		for _, m := range re.FindAllString(src, -1) {
			out = append(out, m)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, lang := range Languages {
		if lang == DefaultLanguage {
			continue
		}
		for _, path := range english {
			base := strings.TrimPrefix(path, "templates/")
			if strings.HasPrefix(base, "layout.") {
				continue // one layout for every language; its words are in phrases.*
			}
			en, _ := fs.ReadFile(templateFS, path)
			other, err := fs.ReadFile(templateFS, templateDir(lang)+base)
			if err != nil {
				t.Errorf("%s: no %s translation", base, lang)
				continue
			}
			for _, re := range []*regexp.Regexp{definedBlock, dataField} {
				if want, got := uses(string(en), re), uses(string(other), re); !slices.Equal(want, got) {
					t.Errorf("%s %s: uses %v, English uses %v", base, lang, got, want)
				}
			}
		}
	}
}

func TestGermanDurationsAndTimes(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{10 * time.Minute: "10 Minuten", time.Hour: "1 Stunde", 48 * time.Hour: "2 Tage"} {
		if got := humanDuration("de", d); got != want {
			t.Errorf("humanDuration(de, %v) = %q, want %q", d, got, want)
		}
	}
	if got := humanTime("de", signInTime); got != "Samstag, 14. März 2026 um 08:26 UTC" {
		t.Errorf("humanTime(de) = %q", got)
	}
	// A language not offered reads English.
	subject, _, _, err := newTestTemplates(t).RenderIn("xx", TemplateVerification, sampleData()[TemplateVerification])
	if err != nil || subject != "Confirm your e-mail address for Clearvest" {
		t.Errorf("unknown language: %q, %v", subject, err)
	}
}
