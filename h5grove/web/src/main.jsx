// The page lindi serve embeds: h5web's App reading the h5grove API of the
// server that served this page. ?file= names the served file, ?path= the
// entity opened first.
import { App, H5GroveProvider } from '@h5web/app';
import '@h5web/app/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(window.location.search);
const file = params.get('file') || '';
const path = params.get('path') || '/';
const url = window.location.origin + window.location.pathname.replace(/\/+$/, '');

document.title = file ? `${file} — lindi serve` : 'lindi serve';

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <H5GroveProvider url={url} filepath={file}>
      <App initialPath={path} />
    </H5GroveProvider>
  </StrictMode>,
);
