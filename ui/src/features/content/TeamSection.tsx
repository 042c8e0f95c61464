import { useGetContentTeamQuery, type ContentTeamMember } from '../../api/enhanced';
import { useTranslation } from '../../i18n';
import { ContentIcon } from './ContentIcon';
import { SampleLabel } from './SampleLabel';

function MemberCard({ member, sample }: { member: ContentTeamMember; sample: boolean }) {
  const { t, i18n } = useTranslation();
  return (
    <li className="team-card" data-testid="team-card">
      <img className="team-card__image" src={member.image} alt={sample ? t('content.sampleAvatar', { name: member.name }) : member.name} width={96} height={96} loading="lazy" />
      <div className="team-card__body">
        {sample ? (
          <span lang={i18n.language}>
            <SampleLabel>{t('content.sampleProfile')}</SampleLabel>
          </span>
        ) : null}
        <h3 className="team-card__name">{member.name}</h3>
        <p className="team-card__title">
          <ContentIcon name={member.icon} />
          <span>{member.title}</span>
        </p>
        <p className="team-card__description">{member.description}</p>
      </div>
    </li>
  );
}

// The team section of the home page, only when there is a team to show: the operator's real
// profiles (content/team.yaml, docs/content.md), or in development the shipped sample profiles,
// labelled as samples on the section and on every card. A production server never sends sample
// people (api/content.go), so without real profiles, and while the team loads or if it cannot be
// loaded, there is no section at all rather than an empty box or a spinner for something that
// may not exist.
export function TeamSection() {
  const { data } = useGetContentTeamQuery();
  const { t, i18n } = useTranslation();
  if (!data || data.members.length === 0) return null;
  // lang: the operator's content is English in every language of the UI (docs/i18n.md, "What stays
  // English"), so a screen reader on a German page reads it with English pronunciation.
  return (
    <section id="team" className="section team" aria-labelledby="team-title" lang="en" data-testid="team-section">
      <h2 id="team-title" className="team__title">
        {data.heading}
      </h2>
      {data.sample ? (
        <p className="team__sample" data-testid="team-sample-notice">
          <span lang={i18n.language}>
            <SampleLabel>{t('content.sampleProfiles')}</SampleLabel>
          </span>{' '}
          {data.intro || <span lang={i18n.language}>{t('content.teamSample')}</span>}
        </p>
      ) : data.intro ? (
        <p className="muted">{data.intro}</p>
      ) : null}
      <ul className="team__grid">
        {data.members.map((m) => (
          <MemberCard key={m.id} member={m} sample={data.sample} />
        ))}
      </ul>
    </section>
  );
}
