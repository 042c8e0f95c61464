package mail

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var testBrand = Branding{Product: "Clearvest", PublicURL: "https://clearvest.example.com/", SupportEmail: "support@clearvest.example.com"}

func newTestTemplates(t *testing.T) *Templates {
	t.Helper()
	tp, err := NewTemplates(testBrand)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

var signInTime = time.Date(2026, 3, 14, 9, 26, 53, 0, time.FixedZone("CET", 3600))

// TestRenderEveryTemplate checks each message says what it must, in both bodies.
func TestRenderEveryTemplate(t *testing.T) {
	t.Parallel()
	tp := newTestTemplates(t)
	const link = "https://clearvest.example.com/verify/tok_123?a=1&b=2"
	const secure = "https://clearvest.example.com/secure/wm_456"
	tests := []struct {
		name     string
		data     any
		subject  string
		mustText []string
		mustHTML []string
	}{
		{TemplateVerification, VerificationData{Name: "Ada", Link: link, ValidFor: 24 * time.Hour},
			"Confirm your e-mail address for Clearvest",
			[]string{"Hello Ada,", link, "1 day"},
			[]string{`href="https://clearvest.example.com/verify/tok_123?a=1&amp;b=2"`, "1 day"}},
		{TemplateLoginCode, LoginCodeData{Name: "Ada", Code: "042137", ValidFor: 10 * time.Minute},
			"Your Clearvest sign-in code",
			[]string{"042137", "10 minutes", "Never share it"},
			[]string{"042137", "10 minutes"}},
		{TemplateNewDevice, NewDeviceData{Name: "Ada", Time: signInTime, IP: "203.0.113.7", Device: "Firefox on Linux", SecureLink: secure},
			"New sign-in to your Clearvest account",
			[]string{"Saturday 14 March 2026 at 08:26 UTC", "203.0.113.7", "Firefox on Linux", "Wasn't you?", secure},
			[]string{"Saturday 14 March 2026 at 08:26 UTC", "203.0.113.7", "Firefox on Linux", "Wasn't you?", `href="` + secure + `"`}},
		{TemplatePasswordReset, PasswordResetData{Name: "Ada", Link: link, ValidFor: time.Hour},
			"Reset your Clearvest password",
			[]string{link, "1 hour", "only once"},
			[]string{`href="https://clearvest.example.com/verify/tok_123?a=1&amp;b=2"`, "1 hour"}},
		{TemplatePasswordChanged, PasswordChangedData{Name: "Ada", Time: signInTime, SecureLink: secure},
			"Your Clearvest password was changed",
			[]string{"Saturday 14 March 2026 at 08:26 UTC", "Wasn't you?", secure, "support@clearvest.example.com"},
			[]string{"Wasn't you?", `href="` + secure + `"`, `href="mailto:support@clearvest.example.com"`}},
		{TemplatePasswordChanged, PasswordChangedData{Time: signInTime},
			"Your Clearvest password was changed",
			[]string{"Hello,", "https://clearvest.example.com/forgot"},
			[]string{`href="https://clearvest.example.com/forgot"`}},
		{TemplateComposed, ComposedData{Name: "Ada", Subject: "Scheduled maintenance", Message: "We will be down on Sunday.\n\nThanks,\nThe team"},
			"Scheduled maintenance",
			[]string{"We will be down on Sunday.\n\nThanks,\nThe team"},
			[]string{"<p style=\"margin:0 0 16px 0;\">We will be down on Sunday.</p>", "Thanks,<br>\nThe team"}},
		{TemplateKYCApproved, KYCApprovedData{Name: "Ada", Link: "https://clearvest.example.com/my-account"},
			"Your identity is verified",
			[]string{"Hello Ada,", "approved", "https://clearvest.example.com/my-account"},
			[]string{"approved", `href="https://clearvest.example.com/my-account"`}},
		{TemplateKYCRejected, KYCRejectedData{Name: "Ada", Link: "https://clearvest.example.com/upload-kyc",
			Documents: []KYCRejectedDocument{{Document: "Back", Reason: "The image is blurry or unreadable."}}, Comment: "Use <daylight>"},
			"Please send your identity document again",
			[]string{"Back: The image is blurry or unreadable.", "Use <daylight>", "https://clearvest.example.com/upload-kyc"},
			[]string{"The image is blurry or unreadable.", "Use &lt;daylight&gt;", `href="https://clearvest.example.com/upload-kyc"`}},
		{TemplateDepositConfirmed, DepositConfirmedData{Name: "Ada", TransactionID: "DEP-7K3Q-9XM2", Received: "$990.00", Asset: "USDT",
			Notes: "Arrived <short>", Link: "https://clearvest.example.com/my-account"},
			"Your deposit DEP-7K3Q-9XM2 was confirmed",
			[]string{"Hello Ada,", "$990.00 was added", "Arrived <short>", "https://clearvest.example.com/my-account"},
			[]string{"$990.00", "Arrived &lt;short&gt;", `href="https://clearvest.example.com/my-account"`}},
		{TemplateDepositRejected, DepositRejectedData{Name: "Ada", TransactionID: "DEP-7K3Q-9XM2", Amount: "$1,000.00", Asset: "BTC",
			Notes: "Nothing arrived", Link: "https://clearvest.example.com/my-account"},
			"Your deposit DEP-7K3Q-9XM2 was not confirmed",
			[]string{"$1,000.00", "Nothing arrived", "nothing was added"},
			[]string{"$1,000.00", "Nothing arrived", `href="https://clearvest.example.com/my-account"`}},
		{TemplateWithdrawalRequested, WithdrawalRequestedData{Name: "Ada", Amount: "$100.00", Fee: "$2.00", Receives: "$98.00", Asset: "USDT",
			Network: "TRON", Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Link: "https://clearvest.example.com/withdrawal/w1"},
			"We received your withdrawal request of $100.00",
			[]string{"fee is $2.00", "you will receive $98.00", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "https://clearvest.example.com/withdrawal/w1"},
			[]string{"$98.00", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", `href="https://clearvest.example.com/withdrawal/w1"`}},
		{TemplateWithdrawalApproved, WithdrawalApprovedData{Name: "Ada", Amount: "$100.00", Fee: "$2.00", Receives: "$98.00", Asset: "USDT",
			Network: "TRON", Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", TxHash: "0xpaid<1>", Link: "https://clearvest.example.com/withdrawal/w1"},
			"Your withdrawal of $100.00 was approved",
			[]string{"$98.00 was sent", "Payout transaction: 0xpaid<1>"},
			[]string{"$98.00", "0xpaid&lt;1&gt;", `href="https://clearvest.example.com/withdrawal/w1"`}},
		{TemplateReferralBonus, ReferralBonusData{Name: "Ada", Amount: "$5.00", Link: "https://clearvest.example.com/referrals"},
			"You earned a $5.00 referral bonus",
			[]string{"Hello Ada,", "$5.00 referral bonus", "https://clearvest.example.com/referrals"},
			[]string{"$5.00", `href="https://clearvest.example.com/referrals"`}},
		{TemplateWithdrawalRejected, WithdrawalRejectedData{Name: "Ada", Amount: "$100.00", Reason: "Address <unclear>",
			Link: "https://clearvest.example.com/withdrawal/w1"},
			"Your withdrawal of $100.00 was not approved",
			[]string{"no fee was charged", "Our reason: Address <unclear>"},
			[]string{"Address &lt;unclear&gt;", `href="https://clearvest.example.com/withdrawal/w1"`}},
		{TemplateInvestmentRequested, InvestmentData{Name: "Ada", Plan: "Basic", Amount: "$1,000.00", TermDays: 30, TermRate: "1.50%", APR: "18.25%",
			Link: "https://clearvest.example.com/investment/i1"},
			"We received your investment request",
			[]string{"$1,000.00", "Basic plan", "30 days", "18.25%", "https://clearvest.example.com/investment/i1"},
			[]string{"$1,000.00", `href="https://clearvest.example.com/investment/i1"`}},
		{TemplateInvestmentApproved, InvestmentData{Name: "Ada", Plan: "Basic", Amount: "$1,000.00", Return: "$15.00", Payout: "$1,015.00",
			End: time.Date(2026, 4, 30, 9, 0, 0, 0, time.UTC), Link: "https://clearvest.example.com/investment/i1"},
			"Your investment in the Basic plan is active",
			[]string{"$1,015.00", "$15.00", "Thursday 30 April 2026"},
			[]string{"$1,015.00", "Thursday 30 April 2026", `href="https://clearvest.example.com/investment/i1"`}},
		{TemplateInvestmentRejected, InvestmentData{Name: "Ada", Plan: "Basic", Amount: "$1,000.00", Reason: "Source <unclear>",
			Link: "https://clearvest.example.com/investment/i1"},
			"Your investment request was not approved",
			[]string{"$1,000.00 is back", "Source <unclear>"},
			[]string{"Source &lt;unclear&gt;", `href="https://clearvest.example.com/investment/i1"`}},
		{TemplateInvestmentMatured, InvestmentData{Name: "Ada", Plan: "Basic", Amount: "$1,000.00", Return: "$15.00", Payout: "$1,015.00",
			Link: "https://clearvest.example.com/investment/i1"},
			"Your investment in the Basic plan matured",
			[]string{"$1,015.00 was paid into your available balance"},
			[]string{"$1,015.00", `href="https://clearvest.example.com/investment/i1"`}},
	}
	for _, tc := range tests {
		subject, text, html, err := tp.Render(tc.name, tc.data)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if subject != tc.subject {
			t.Errorf("%s: subject %q, want %q", tc.name, subject, tc.subject)
		}
		for _, s := range tc.mustText {
			if !strings.Contains(text, s) {
				t.Errorf("%s: text body lacks %q:\n%s", tc.name, s, text)
			}
		}
		for _, s := range tc.mustHTML {
			if !strings.Contains(html, s) {
				t.Errorf("%s: HTML body lacks %q:\n%s", tc.name, s, html)
			}
		}
		checkAccessibleHTML(t, tc.name, subject, html)
		// Branding in both bodies.
		for _, body := range []string{text, html} {
			if !strings.Contains(body, "support@clearvest.example.com") || !strings.Contains(body, "https://clearvest.example.com") {
				t.Errorf("%s: a body lacks the operator's support address or public URL", tc.name)
			}
		}
		if strings.Contains(text, "<p") || strings.Contains(text, "&amp;") {
			t.Errorf("%s: the text body contains HTML", tc.name)
		}
	}
}

var (
	externalResource = regexp.MustCompile(`(?i)\b(src|background)\s*=|<img|<link|<script|@import|url\(`)
	htmlTitle        = regexp.MustCompile(`<title>([^<]*)</title>`)
)

func checkAccessibleHTML(t *testing.T, name, subject, html string) {
	t.Helper()
	if !strings.HasPrefix(html, "<!DOCTYPE html>") || !strings.Contains(html, `<html lang="en"`) {
		t.Errorf("%s: HTML lacks a doctype or a language", name)
	}
	if m := htmlTitle.FindStringSubmatch(html); m == nil || m[1] == "" {
		t.Errorf("%s: HTML has no title", name)
	}
	if !strings.Contains(html, `<meta charset="utf-8">`) {
		t.Errorf("%s: HTML declares no charset", name)
	}
	if externalResource.MatchString(html) {
		t.Errorf("%s: HTML loads an external resource or image: %s", name, externalResource.FindString(html))
	}
	if strings.Count(html, "<table") != strings.Count(html, `<table role="presentation"`) {
		t.Errorf("%s: a layout table is not marked role=presentation", name)
	}
}

func TestRenderEscapes(t *testing.T) {
	t.Parallel()
	tp := newTestTemplates(t)
	const evil = `<script>alert("x")</script>`

	_, text, html, err := tp.Render(TemplateNewDevice, NewDeviceData{
		Name: evil, Time: signInTime, IP: `1.2.3.4"><b>`, Device: evil,
		SecureLink: `https://clearvest.example.com/secure/x"onmouseover="alert(1)`,
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, "<script") || strings.Contains(html, `"><b>`) || strings.Contains(html, `"onmouseover="`) {
		t.Errorf("HTML body contains unescaped data:\n%s", html)
	}
	if !strings.Contains(html, "&lt;script&gt;") {
		t.Errorf("HTML body does not show the escaped name:\n%s", html)
	}
	if !strings.Contains(text, evil) {
		t.Errorf("plain text must show the data as it is, got:\n%s", text)
	}

	subject, _, html, err := tp.Render(TemplateComposed, ComposedData{
		Subject: "Hello\r\nBcc: victim@example.com  <b>now</b>",
		Message: "<b>bold</b> & <a href=\"https://evil.example\">click</a>\n\nsecond   \nline",
	})
	if err != nil {
		t.Fatal(err)
	}
	if subject != "Hello Bcc: victim@example.com <b>now</b>" {
		t.Errorf("subject %q: want one line, whitespace collapsed", subject)
	}
	if !strings.Contains(html, "<title>Hello Bcc: victim@example.com &lt;b&gt;now&lt;/b&gt;</title>") {
		t.Errorf("subject not escaped in the title:\n%s", html)
	}
	if strings.Contains(html, "<b>bold</b>") || strings.Contains(html, `href="https://evil.example"`) {
		t.Errorf("staff message interpreted as HTML:\n%s", html)
	}
	if !strings.Contains(html, "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;a href=&#34;https://evil.example&#34;&gt;click&lt;/a&gt;</p>") {
		t.Errorf("staff message not escaped as expected:\n%s", html)
	}
	if !strings.Contains(html, "second<br>\nline</p>") {
		t.Errorf("line breaks not kept:\n%s", html)
	}
}

func TestRenderRefusesBadData(t *testing.T) {
	t.Parallel()
	tp := newTestTemplates(t)
	for _, tc := range []struct {
		name string
		data any
		want string
	}{
		{"nope", VerificationData{}, "no template"},
		{TemplateVerification, LoginCodeData{}, "want mail.VerificationData"},
		{TemplateVerification, &VerificationData{Link: "https://x.example"}, "want mail.VerificationData"},
		{TemplateVerification, VerificationData{Link: "javascript:alert(1)"}, "not an absolute http(s) URL"},
		{TemplateVerification, VerificationData{Link: "/verify/abc"}, "not an absolute http(s) URL"},
		{TemplateLoginCode, LoginCodeData{Code: "12345", ValidFor: time.Minute}, "six digits"},
		{TemplateLoginCode, LoginCodeData{Code: "123456"}, "ValidFor"},
		{TemplateNewDevice, NewDeviceData{SecureLink: "https://x.example"}, "time"},
		{TemplateNewDevice, NewDeviceData{Time: signInTime}, "not an absolute"},
		{TemplatePasswordReset, PasswordResetData{Link: "https://x.example"}, "ValidFor"},
		{TemplatePasswordChanged, PasswordChangedData{Time: signInTime, SecureLink: "data:text/html,x"}, "not an absolute"},
		{TemplateComposed, ComposedData{Subject: "  ", Message: "x"}, "needs a subject"},
		{TemplateKYCRejected, KYCRejectedData{Link: "https://x.example"}, "at least one document"},
		{TemplateKYCApproved, KYCApprovedData{Link: "javascript:alert(1)"}, "not an absolute"},
	} {
		_, _, _, err := tp.Render(tc.name, tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Render(%s, %#v) = %v, want an error containing %q", tc.name, tc.data, err, tc.want)
		}
	}
}

func TestBranding(t *testing.T) {
	t.Parallel()
	for _, b := range []Branding{
		{PublicURL: ""},
		{PublicURL: "clearvest.example.com"},
		{PublicURL: "https://clearvest.example.com", SupportEmail: "not an address"},
	} {
		if _, err := NewTemplates(b); err == nil {
			t.Errorf("NewTemplates(%+v) accepted bad branding", b)
		}
	}
	tp, err := NewTemplates(Branding{PublicURL: "http://localhost:8080"})
	if err != nil {
		t.Fatal(err)
	}
	subject, text, html, err := tp.Render(TemplateLoginCode, LoginCodeData{Code: "123456", ValidFor: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if subject != "Your Clearvest sign-in code" {
		t.Errorf("default product name not used: %q", subject)
	}
	if strings.Contains(text, "For help") || strings.Contains(html, "mailto:") {
		t.Error("a support address is offered though none is configured")
	}
}

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		10 * time.Minute: "10 minutes", time.Minute: "1 minute", time.Hour: "1 hour",
		2 * time.Hour: "2 hours", 90 * time.Minute: "90 minutes", 24 * time.Hour: "1 day",
		72 * time.Hour: "3 days", 30 * time.Second: "30 seconds",
	} {
		if got := humanDuration("en", d); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestRenderedMessageSurvivesTransport runs a rendered message through the file transport and
// reads it back, as the development mailbox does.
func TestRenderedMessageSurvivesTransport(t *testing.T) {
	t.Parallel()
	tp := newTestTemplates(t)
	subject, text, html, err := tp.Render(TemplatePasswordReset, PasswordResetData{
		Name: "Zoë", Link: "https://clearvest.example.com/resetPassword/tok_ü9", ValidFor: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr, err := Open("file://"+filepath.ToSlash(dir), testFrom)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Send(context.Background(), Message{To: "zoe@example.com", Subject: subject, Text: text, HTML: html}); err != nil {
		t.Fatal(err)
	}
	got, err := ListFileMailbox(dir, 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("%v, %v", got, err)
	}
	if got[0].Subject != subject || got[0].Text != text || got[0].HTML != html {
		t.Errorf("message changed on the way through:\nsubject %q\ntext %q\nhtml %q", got[0].Subject, got[0].Text, got[0].HTML)
	}
}
