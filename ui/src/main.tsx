import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { appRoutes } from './app/router';
import { makeStore } from './app/store';
import { startLanguage } from './i18n';
import './styles/index.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

const router = createBrowserRouter(appRoutes());

// The first render waits for the reader's language (a saved choice or the browser's), so a German
// reader never sees the page flash in English; English needs no wait, its texts are bundled.
void startLanguage().finally(() =>
  createRoot(root).render(
    <StrictMode>
      <Provider store={makeStore()}>
        <RouterProvider router={router} />
      </Provider>
    </StrictMode>,
  ),
);
