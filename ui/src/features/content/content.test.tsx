import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { useGetContentTeamQuery, type ContentFaq, type ContentTeam } from '../../api/enhanced';
import { renderApp, renderWithProviders } from '../../test/renderWithProviders';
import { json, signedOut, stubApi } from '../../test/stubApi';
import { FaqSection } from './FaqSection';
import { TeamSection } from './TeamSection';

const faq: ContentFaq = {
  sample: false,
  items: Array.from({ length: 8 }, (_, i) => ({ id: `q${i + 1}`, question: `Question ${i + 1}?`, answerHtml: `<p>Answer ${i + 1}.</p>` })),
};

const team: ContentTeam = {
  sample: true,
  heading: 'Meet Our Expert Team',
  intro: 'These are sample profiles.',
  members: Array.from({ length: 6 }, (_, i) => ({
    id: `m${i + 1}`,
    name: `Person ${i + 1}`,
    title: 'Role',
    image: `/team/member-${i + 1}.svg`,
    description: 'Sample profile.',
    icon: 'shield',
  })),
};

const expanded = () => screen.getAllByRole('button', { expanded: true });

describe('FaqSection', () => {
  it('lists the questions closed, opens one at a time and closes the open one when pressed again', async () => {
    stubApi({ 'GET /api/content/faq': json(faq) });
    const user = userEvent.setup();
    const { container } = renderWithProviders(<FaqSection />);
    const first = await screen.findByRole('button', { name: 'Question 1?' });
    // The operator's content is English whatever the UI's language: marked so for screen readers.
    expect(container.querySelector('section#faq')?.getAttribute('lang')).toBe('en');
    expect(screen.getAllByRole('button', { expanded: false })).toHaveLength(8);
    expect(screen.queryAllByRole('region', { name: /^Question/ })).toHaveLength(0);

    await user.click(first);
    expect(first.getAttribute('aria-expanded')).toBe('true');
    const panel = document.getElementById(first.getAttribute('aria-controls') ?? '');
    expect(panel?.hidden).toBe(false);
    expect(panel?.textContent).toBe('Answer 1.');
    expect(screen.getByRole('region', { name: 'Question 1?' })).toBe(panel);

    const third = screen.getByRole('button', { name: 'Question 3?' });
    await user.click(third);
    expect(expanded()).toEqual([third]);
    expect(panel?.hidden).toBe(true);

    await user.click(third);
    expect(screen.queryAllByRole('button', { expanded: true })).toHaveLength(0);
  });

  it('opens with the keyboard', async () => {
    stubApi({ 'GET /api/content/faq': json(faq) });
    const user = userEvent.setup();
    renderWithProviders(<FaqSection />);
    await screen.findByRole('button', { name: 'Question 1?' });
    await user.tab();
    await user.keyboard('{Enter}');
    expect(expanded().map((b) => b.textContent)).toEqual(['Question 1?']);
  });

  it('says when the questions cannot be loaded and tries again', async () => {
    const stub = stubApi({ 'GET /api/content/faq': json({ message: 'Site content is not available.' }, 422) });
    const user = userEvent.setup();
    renderWithProviders(<FaqSection />);
    expect(await screen.findByText('Site content is not available.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(stub.to('GET /api/content/faq').length).toBeGreaterThan(1);
  });
});

describe('TeamSection', () => {
  it('labels the section and every card as a sample', async () => {
    stubApi({ 'GET /api/content/team': json(team) });
    renderWithProviders(<TeamSection />);
    expect(await screen.findByRole('heading', { level: 2, name: 'Meet Our Expert Team' })).toBeTruthy();
    expect(screen.getByTestId('team-sample-notice').textContent).toContain('Sample profiles');
    const cards = screen.getAllByTestId('team-card');
    expect(cards).toHaveLength(6);
    for (const card of cards) expect(within(card).getByText('Sample profile')).toBeTruthy();
  });

  it('shows no sample label once the operator publishes the real team', async () => {
    stubApi({ 'GET /api/content/team': json({ ...team, sample: false, intro: '' }) });
    renderWithProviders(<TeamSection />);
    await screen.findAllByTestId('team-card');
    expect(screen.queryByText('Sample profile')).toBeNull();
    expect(screen.queryByTestId('team-sample-notice')).toBeNull();
  });

  // A production server sends no team while the profiles are samples (api/content.go).
  it('is absent, not an empty box, when there is no team to show', async () => {
    stubApi({ 'GET /api/content/team': json({ sample: false, heading: 'Meet Our Expert Team', intro: '', members: [] }) });
    renderWithProviders(
      <>
        <div data-testid="team-slot">
          <TeamSection />
        </div>
        <TeamQueryState />
      </>,
    );
    // Nothing while it loads either: there may be no team at all.
    expect(screen.getByTestId('team-slot').innerHTML).toBe('');
    await screen.findByText('team: fulfilled');
    expect(screen.getByTestId('team-slot').innerHTML).toBe('');
  });

  it('is absent when the team cannot be loaded', async () => {
    stubApi({ 'GET /api/content/team': json({ message: 'Something went wrong.' }, 500) });
    renderWithProviders(
      <>
        <div data-testid="team-slot">
          <TeamSection />
        </div>
        <TeamQueryState />
      </>,
    );
    await screen.findByText('team: rejected');
    expect(screen.getByTestId('team-slot').innerHTML).toBe('');
  });
});

// Says when the team query has settled, so a test can check what the section shows afterwards.
function TeamQueryState() {
  const { status } = useGetContentTeamQuery();
  return <p>team: {status}</p>;
}

describe('static pages', () => {
  it('renders the page and its sample label', async () => {
    stubApi({
      'GET /api/content/pages/license': json({ slug: 'license', title: 'License', sample: true, html: '<h2>Who operates this service</h2>' }),
    });
    renderApp({ route: '/license', ...signedOut() });
    expect(await screen.findByRole('heading', { level: 2, name: 'Who operates this service' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'License' })).toBeTruthy();
    expect(screen.getByText('Sample text')).toBeTruthy();
    expect(screen.getByRole('article').getAttribute('lang')).toBe('en');
  });
});
