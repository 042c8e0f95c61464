import { useGetContentTeamQuery, type ContentTeamMember } from '../../api/enhanced';
import { QueryState } from '../../components/QueryState';
import { ContentIcon } from './ContentIcon';
import { SampleLabel } from './SampleLabel';

function MemberCard({ member, sample }: { member: ContentTeamMember; sample: boolean }) {
  return (
    <li className="team-card" data-testid="team-card">
      <img className="team-card__image" src={member.image} alt={sample ? `Sample avatar for ${member.name}` : member.name} width={96} height={96} loading="lazy" />
      <div className="team-card__body">
        {sample ? <SampleLabel>Sample profile</SampleLabel> : null}
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

// The team section of the home page. While the operator's team file is marked as a sample the
// section says so, and so does every card.
export function TeamSection() {
  const team = useGetContentTeamQuery();
  const fallbackHeading = (
    <h2 id="team-title" className="team__title">
      Meet Our Expert Team
    </h2>
  );
  // lang: the operator's content is English in every language of the UI (docs/i18n.md, "What stays
  // English"), so a screen reader on a German page reads it with English pronunciation.
  return (
    <section id="team" className="section team" aria-labelledby="team-title" lang="en">
      <QueryState
        query={team}
        loading="Loading the team…"
        failed="The team could not be loaded"
        heading={fallbackHeading}
      >
        {(data) => (
          <>
            <h2 id="team-title" className="team__title">
              {data.heading}
            </h2>
            {data.sample ? (
              <p className="team__sample" data-testid="team-sample-notice">
                <SampleLabel>Sample profiles</SampleLabel> {data.intro || 'These people are examples, not our staff.'}
              </p>
            ) : data.intro ? (
              <p className="muted">{data.intro}</p>
            ) : null}
            {data.members.length === 0 ? <p className="empty">No team members have been published yet.</p> : null}
            <ul className="team__grid">
              {data.members.map((m) => (
                <MemberCard key={m.id} member={m} sample={data.sample} />
              ))}
            </ul>
          </>
        )}
      </QueryState>
    </section>
  );
}
