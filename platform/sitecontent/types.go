package sitecontent

import (
	"fmt"
	"regexp"
	"strings"

	"clearvest/domain/identity"
)

// FAQ is faq.yaml: the questions of the FAQ section, in order.
type FAQ struct {
	// Sample is true while the answers are placeholder text the operator must review.
	Sample bool      `yaml:"sample"`
	Items  []FAQItem `yaml:"items"`
}

// FAQItem is one question. Answer is Markdown; AnswerHTML is it rendered on load.
type FAQItem struct {
	ID         string `yaml:"id"`
	Question   string `yaml:"question"`
	Answer     string `yaml:"answer"`
	AnswerHTML string `yaml:"-"`
}

// Team is team.yaml: the team section of the home page.
type Team struct {
	// Sample is true while the members are placeholders; the site then labels every card.
	Sample  bool     `yaml:"sample"`
	Heading string   `yaml:"heading"`
	Intro   string   `yaml:"intro"`
	Members []Member `yaml:"members"`
}

// Member is one card of the team section. Image is a path on this site ("/team/a.svg") or an
// https URL; Icon is one of Icons.
type Member struct {
	ID          string `yaml:"id"`
	Name        string `yaml:"name"`
	Title       string `yaml:"title"`
	Image       string `yaml:"image"`
	Description string `yaml:"description"`
	Icon        string `yaml:"icon"`
}

// HowItWorks is how-it-works.yaml: the steps of /how-it-works, in order.
type HowItWorks struct {
	Intro string `yaml:"intro"`
	Steps []Step `yaml:"steps"`
}

// Step is one step. Description is Markdown; DescriptionHTML is it rendered on load. Link is
// optional: a path on this site.
type Step struct {
	ID              string `yaml:"id"`
	Title           string `yaml:"title"`
	Icon            string `yaml:"icon"`
	Link            string `yaml:"link"`
	Description     string `yaml:"description"`
	DescriptionHTML string `yaml:"-"`
}

// Support is support.yaml: the Help Center's contact details.
type Support struct {
	Email        string `yaml:"email"`
	ResponseTime string `yaml:"response_time"`
	Hours        string `yaml:"hours"`
}

// Page is pages/<slug>.md: front matter (title, sample, updated) between "---" lines, then
// Markdown. Updated is the date of the page's last change (YYYY-MM-DD): the page shows it, and
// for the terms and the privacy policy it is the version a new user agrees to, so those two
// must have it.
type Page struct {
	Slug    string
	Title   string `yaml:"title"`
	Sample  bool   `yaml:"sample"`
	Updated string `yaml:"updated"`
	HTML    string `yaml:"-"`
}

// The pages a person agrees to when they create an account (docs/identity.md, "Consent").
const (
	TermsSlug   = "license"
	PrivacySlug = "privacy-policy"
)

var datePattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// Icons are the icon names team cards and steps may use; the UI draws each.
var Icons = []string{"chart", "compass", "gift", "headset", "id-card", "list", "lock", "mail", "pen", "shield", "user", "wallet"}

var (
	idPattern   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	slugPattern = idPattern
)

// fieldErr names the file and field at fault, which is what an operator needs to fix it.
type fieldErr struct {
	file, field, problem string
}

func (e *fieldErr) Error() string {
	return fmt.Sprintf("content: %s: %s: %s", e.file, e.field, e.problem)
}

type checker struct {
	file string
	errs []error
}

func (c *checker) fail(field, format string, args ...any) {
	c.errs = append(c.errs, &fieldErr{file: c.file, field: field, problem: fmt.Sprintf(format, args...)})
}

func (c *checker) required(field, value string, maxLen int) {
	switch v := strings.TrimSpace(value); {
	case v == "":
		c.fail(field, "is required")
	case len([]rune(v)) > maxLen:
		c.fail(field, "must be at most %d characters", maxLen)
	}
}

// optional refuses a value longer than maxLen characters; an empty one is fine.
func (c *checker) optional(field, value string, maxLen int) {
	if len([]rune(value)) > maxLen {
		c.fail(field, "must be at most %d characters", maxLen)
	}
}

func (c *checker) id(field, value string, seen map[string]bool) {
	switch {
	case !idPattern.MatchString(value):
		c.fail(field, "must be lower-case letters, digits and single hyphens, e.g. \"create-account\" (got %q)", value)
	case seen[value]:
		c.fail(field, "%q is used twice", value)
	}
	seen[value] = true
}

func (c *checker) icon(field, value string) {
	for _, i := range Icons {
		if value == i {
			return
		}
	}
	c.fail(field, "must be one of %s (got %q)", strings.Join(Icons, ", "), value)
}

// sitePath accepts a path on this site: "/" then no scheme, no "//" (another host), no "..".
func sitePath(v string) bool {
	return strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") && !strings.Contains(v, "..") &&
		!strings.ContainsAny(v, " \t\r\n\\\"'<>")
}

// entries checks a list that needs at least one entry (what names one), each with an id unique
// in the list; check looks at the rest of an entry, given its path ("members[2]").
func entries[T any](c *checker, field, what string, list []T, id func(T) string, check func(path string, entry T)) {
	if len(list) == 0 {
		c.fail(field, "needs at least one %s", what)
	}
	seen := map[string]bool{}
	for i, e := range list {
		p := fmt.Sprintf("%s[%d]", field, i)
		c.id(p+".id", id(e), seen)
		check(p, e)
	}
}

func (f *FAQ) validate(c *checker) {
	entries(c, "items", "question", f.Items, func(it FAQItem) string { return it.ID }, func(p string, it FAQItem) {
		c.required(p+".question", it.Question, 200)
		c.required(p+".answer", it.Answer, 5000)
	})
}

func (t *Team) validate(c *checker) {
	c.required("heading", t.Heading, 100)
	c.optional("intro", t.Intro, 500)
	entries(c, "members", "member", t.Members, func(m Member) string { return m.ID }, func(p string, m Member) {
		c.required(p+".name", m.Name, 100)
		c.required(p+".title", m.Title, 100)
		c.required(p+".description", m.Description, 500)
		c.icon(p+".icon", m.Icon)
		if !sitePath(m.Image) && !strings.HasPrefix(m.Image, "https://") {
			c.fail(p+".image", "must be a path on this site (\"/team/name.svg\") or an https:// URL (got %q)", m.Image)
		}
	})
}

func (h *HowItWorks) validate(c *checker) {
	c.optional("intro", h.Intro, 500)
	entries(c, "steps", "step", h.Steps, func(s Step) string { return s.ID }, func(p string, s Step) {
		c.required(p+".title", s.Title, 100)
		c.required(p+".description", s.Description, 2000)
		c.icon(p+".icon", s.Icon)
		if s.Link != "" && !sitePath(s.Link) {
			c.fail(p+".link", "must be a path on this site, e.g. \"/register\" (got %q)", s.Link)
		}
	})
}

func (s *Support) validate(c *checker) {
	if identity.ValidateEmail(strings.TrimSpace(s.Email)) != nil {
		c.fail("email", "must be an e-mail address (got %q)", s.Email)
	}
	c.required("response_time", s.ResponseTime, 200)
	c.optional("hours", s.Hours, 200)
}

func (p *Page) validate(c *checker) {
	c.required("title", p.Title, 100)
	switch {
	case p.Updated == "" && (p.Slug == TermsSlug || p.Slug == PrivacySlug):
		c.fail("updated", "is required: the date of the last change (YYYY-MM-DD), the version a new user agrees to")
	case p.Updated != "" && !datePattern.MatchString(p.Updated):
		c.fail("updated", "must be a date written YYYY-MM-DD")
	}
	if strings.TrimSpace(p.HTML) == "" {
		c.fail("body", "is empty")
	}
}
