// Package sitecontent loads the operator's site content: the FAQ, the team section, the steps
// of "how it works", the static pages and the Help Center's contact details
// (docs/content.md). The shipped files are embedded in the binary (package content); a
// directory (CLEARVEST_CONTENT_DIR) replaces them file by file and is read at request time, a
// file being parsed again when its modification time or size changed, so an operator edits
// content without a rebuild or a restart.
//
// Every file is validated when loaded, and a problem is reported naming the file and the field.
// At start-up a problem stops the server; an edit that breaks a file later is logged and the
// last good version stays served, so a typo never takes a page down.
//
// Markdown is rendered to HTML here, on the server, with raw HTML dropped: the operator writes
// text, never markup that could run in a visitor's browser.
package sitecontent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"go.yaml.in/yaml/v3"

	"clearvest/domain/domainerr"
)

// The files of a content directory.
const (
	FileFAQ        = "faq.yaml"
	FileTeam       = "team.yaml"
	FileHowItWorks = "how-it-works.yaml"
	FileSupport    = "support.yaml"
	PagesDir       = "pages"
)

// ErrPageNotFound answers a slug with no page.
var ErrPageNotFound = domainerr.New(domainerr.NotFound, "Page not found")

// maxFileBytes bounds one content file: far above any page, far below trouble.
const maxFileBytes = 1 << 20

// markdown renders CommonMark with GitHub's tables, strikethrough, task lists and autolinks. It
// is left without html.WithUnsafe, so raw HTML and javascript: links are dropped.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Store serves the content. It is safe for concurrent use.
type Store struct {
	shipped fs.FS
	dir     string
	log     *slog.Logger

	mu      sync.Mutex
	entries map[string]entry
}

// entry is one parsed file, with what identified its version when it was read.
type entry struct {
	fromDir bool
	mod     time.Time
	size    int64
	value   any
}

// New returns a store over the shipped files and, when dir is not "", the operator's directory,
// after loading and validating every file of both: a problem is returned, naming its file and
// field.
func New(shipped fs.FS, dir string, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if dir != "" {
		info, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("content: directory: %w", err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("content: %s is not a directory", dir)
		}
	}
	s := &Store{shipped: shipped, dir: dir, log: logger, entries: map[string]entry{}}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// check parses every file the store can serve, shipped and operator's, collecting every
// broken one and reporting them all: New's start-up check.
func (s *Store) check() error {
	var errs []error
	for _, src := range s.sources() {
		for _, name := range []string{FileFAQ, FileTeam, FileHowItWorks, FileSupport} {
			data, err := fs.ReadFile(src, name)
			if errors.Is(err, fs.ErrNotExist) && src != s.shipped {
				continue // the operator's directory need not replace every file
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("content: %s: %w", name, err))
				continue
			}
			if _, err := parsers[name](data); err != nil {
				errs = append(errs, err)
			}
		}
		pages, err := fs.Glob(src, PagesDir+"/*.md")
		if err != nil {
			return err
		}
		for _, p := range pages {
			data, err := fs.ReadFile(src, p)
			if err == nil {
				_, err = parsePage(p, data)
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (s *Store) sources() []fs.FS {
	if s.dir == "" {
		return []fs.FS{s.shipped}
	}
	return []fs.FS{s.shipped, os.DirFS(s.dir)}
}

var parsers = map[string]func([]byte) (any, error){
	FileFAQ:        func(b []byte) (any, error) { return parseFAQ(b) },
	FileTeam:       func(b []byte) (any, error) { return parseTeam(b) },
	FileHowItWorks: func(b []byte) (any, error) { return parseHowItWorks(b) },
	FileSupport:    func(b []byte) (any, error) { return parseSupport(b) },
}

// FAQ returns faq.yaml.
func (s *Store) FAQ() (FAQ, error) { return get[FAQ](s, FileFAQ, parsers[FileFAQ]) }

// Team returns team.yaml.
func (s *Store) Team() (Team, error) { return get[Team](s, FileTeam, parsers[FileTeam]) }

// HowItWorks returns how-it-works.yaml.
func (s *Store) HowItWorks() (HowItWorks, error) {
	return get[HowItWorks](s, FileHowItWorks, parsers[FileHowItWorks])
}

// Support returns support.yaml.
func (s *Store) Support() (Support, error) { return get[Support](s, FileSupport, parsers[FileSupport]) }

// Page returns pages/<slug>.md, or ErrPageNotFound.
func (s *Store) Page(slug string) (Page, error) {
	if !slugPattern.MatchString(slug) {
		return Page{}, ErrPageNotFound
	}
	name := path.Join(PagesDir, slug+".md")
	return get[Page](s, name, func(b []byte) (any, error) { return parsePage(name, b) })
}

// LegalVersions returns the versions (the "updated" dates) of the terms and the privacy policy
// as they are served now: what a person signing up agrees to.
func (s *Store) LegalVersions() (terms, privacy string, err error) {
	t, err := s.Page(TermsSlug)
	if err != nil {
		return "", "", err
	}
	p, err := s.Page(PrivacySlug)
	if err != nil {
		return "", "", err
	}
	return t.Updated, p.Updated, nil
}

// get returns the file's current parsed value: the operator's version when the directory has
// the file (parsed again only when it changed), else the shipped one.
func get[T any](s *Store, name string, parse func([]byte) (any, error)) (T, error) {
	var zero T
	s.mu.Lock()
	defer s.mu.Unlock()
	cached, ok := s.entries[name]
	if s.dir != "" {
		info, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(name)))
		switch {
		case err == nil && info.Mode().IsRegular():
			if ok && cached.fromDir && cached.mod.Equal(info.ModTime()) && cached.size == info.Size() {
				return cached.value.(T), nil
			}
			v, err := s.readDir(name, info, parse)
			if err == nil {
				s.entries[name] = entry{fromDir: true, mod: info.ModTime(), size: info.Size(), value: v}
				return v.(T), nil
			}
			// Keep serving what worked (or, for a file broken since it appeared, the shipped one);
			// the operator finds the reason in the log. The broken version is remembered, so it is
			// not parsed and logged again on every request.
			s.log.Error("content: an edited file is invalid; serving its last good version", "file", name, "err", err)
			if !ok {
				v, shippedErr := parseShipped(s.shipped, name, parse)
				if shippedErr != nil {
					return zero, err
				}
				cached = entry{value: v}
			}
			s.entries[name] = entry{fromDir: true, mod: info.ModTime(), size: info.Size(), value: cached.value}
			return cached.value.(T), nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			s.log.Error("content: reading the content directory failed; serving the shipped file", "file", name, "err", err)
		}
	}
	if ok && !cached.fromDir {
		return cached.value.(T), nil
	}
	v, err := parseShipped(s.shipped, name, parse)
	if err != nil {
		// A page the operator removed, with none shipped under its name, is gone.
		delete(s.entries, name)
		return zero, err
	}
	s.entries[name] = entry{value: v}
	return v.(T), nil
}

func parseShipped(shipped fs.FS, name string, parse func([]byte) (any, error)) (any, error) {
	data, err := fs.ReadFile(shipped, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrPageNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("content: %s: %w", name, err)
	}
	return parse(data)
}

func (s *Store) readDir(name string, info fs.FileInfo, parse func([]byte) (any, error)) (any, error) {
	if info.Size() > maxFileBytes {
		return nil, fmt.Errorf("content: %s: larger than %d bytes", name, maxFileBytes)
	}
	data, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, fmt.Errorf("content: %s: %w", name, err)
	}
	return parse(data)
}

// Slugs lists the pages there are, shipped or the operator's, in order.
func (s *Store) Slugs() []string {
	seen := map[string]bool{}
	for _, src := range s.sources() {
		names, _ := fs.Glob(src, PagesDir+"/*.md")
		for _, n := range names {
			if slug := strings.TrimSuffix(path.Base(n), ".md"); slugPattern.MatchString(slug) {
				seen[slug] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for slug := range seen {
		out = append(out, slug)
	}
	sort.Strings(out)
	return out
}

func decodeYAML(name string, data []byte, into any) error {
	if len(data) > maxFileBytes {
		return fmt.Errorf("content: %s: larger than %d bytes", name, maxFileBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	// A misspelt field must be an error, not silently ignored content.
	dec.KnownFields(true)
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("content: %s: %w", name, err)
	}
	return nil
}

func render(src string) (string, error) {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func parseFAQ(data []byte) (FAQ, error) {
	var f FAQ
	if err := decodeYAML(FileFAQ, data, &f); err != nil {
		return FAQ{}, err
	}
	c := &checker{file: FileFAQ}
	f.validate(c)
	if len(c.errs) > 0 {
		return FAQ{}, errors.Join(c.errs...)
	}
	for i := range f.Items {
		f.Items[i].Question = strings.TrimSpace(f.Items[i].Question)
		html, err := render(f.Items[i].Answer)
		if err != nil {
			return FAQ{}, fmt.Errorf("content: %s: items[%d].answer: %w", FileFAQ, i, err)
		}
		f.Items[i].AnswerHTML = html
	}
	return f, nil
}

func parseTeam(data []byte) (Team, error) {
	var t Team
	if err := decodeYAML(FileTeam, data, &t); err != nil {
		return Team{}, err
	}
	c := &checker{file: FileTeam}
	t.validate(c)
	if len(c.errs) > 0 {
		return Team{}, errors.Join(c.errs...)
	}
	return t, nil
}

func parseHowItWorks(data []byte) (HowItWorks, error) {
	var h HowItWorks
	if err := decodeYAML(FileHowItWorks, data, &h); err != nil {
		return HowItWorks{}, err
	}
	c := &checker{file: FileHowItWorks}
	h.validate(c)
	if len(c.errs) > 0 {
		return HowItWorks{}, errors.Join(c.errs...)
	}
	for i := range h.Steps {
		html, err := render(h.Steps[i].Description)
		if err != nil {
			return HowItWorks{}, fmt.Errorf("content: %s: steps[%d].description: %w", FileHowItWorks, i, err)
		}
		h.Steps[i].DescriptionHTML = html
	}
	return h, nil
}

func parseSupport(data []byte) (Support, error) {
	var s Support
	if err := decodeYAML(FileSupport, data, &s); err != nil {
		return Support{}, err
	}
	s.Email = strings.TrimSpace(s.Email)
	c := &checker{file: FileSupport}
	s.validate(c)
	if len(c.errs) > 0 {
		return Support{}, errors.Join(c.errs...)
	}
	return s, nil
}

// parsePage reads front matter between a first line "---" and the next, then Markdown.
func parsePage(name string, data []byte) (Page, error) {
	if len(data) > maxFileBytes {
		return Page{}, fmt.Errorf("content: %s: larger than %d bytes", name, maxFileBytes)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return Page{}, &fieldErr{file: name, field: "front matter", problem: "must start with a line \"---\", then title: and sample:, then \"---\""}
	}
	front, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return Page{}, &fieldErr{file: name, field: "front matter", problem: "has no closing \"---\" line"}
	}
	var p Page
	if err := decodeYAML(name, []byte(front), &p); err != nil {
		return Page{}, err
	}
	p.Slug = strings.TrimSuffix(path.Base(name), ".md")
	p.Title = strings.TrimSpace(p.Title)
	p.Updated = strings.TrimSpace(p.Updated)
	html, err := render(body)
	if err != nil {
		return Page{}, fmt.Errorf("content: %s: body: %w", name, err)
	}
	p.HTML = html
	c := &checker{file: name}
	p.validate(c)
	if len(c.errs) > 0 {
		return Page{}, errors.Join(c.errs...)
	}
	return p, nil
}
