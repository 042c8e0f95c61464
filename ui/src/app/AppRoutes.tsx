import { lazy } from 'react';
import { Route, Routes } from 'react-router';
import { Layout } from '../components/Layout';
import { plannedPages } from '../features/coming-soon/plannedPages';
import { HomePage } from '../features/home/HomePage';

// The home page ships in the main chunk because most visits start there; every other page is
// split so the first load stays small.
const ComingSoonPage = lazy(() =>
  import('../features/coming-soon/ComingSoonPage').then((m) => ({ default: m.ComingSoonPage })),
);
const NotFoundPage = lazy(() =>
  import('../features/not-found/NotFoundPage').then((m) => ({ default: m.NotFoundPage })),
);

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<HomePage />} />
        {plannedPages.map(({ path, title }) => (
          <Route key={path} path={path} element={<ComingSoonPage title={title} />} />
        ))}
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
