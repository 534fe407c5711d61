// Shows one flame graph: fetches it from /admin/jfr/flame (with the dashboard's admin token, asked
// of the tab that opened this one, so the token never appears in this page's URL), then shows the
// converter's self-contained HTML in place of this page, under a blob: URL.
(function () {
  'use strict';

  /** How long a conversion may take: a large recording takes a while. */
  const CONVERSION_TIMEOUT_MS = 10 * 60 * 1000;
  /** While JFR writes a stopping recording's file the node answers 409: ask again, this often. */
  const RETRY_MS = 1000;
  const MAX_RETRIES = 30;

  const status = document.getElementById('flame-status');
  const params = new URLSearchParams(location.search);
  const name = params.get('name') || '';
  const type = params.get('type') || 'cpu';

  let token = null;
  try {
    if (window.opener && typeof window.opener.quorumkvAdminToken === 'function') {
      token = window.opener.quorumkvAdminToken();
    }
  } catch (notSameOrigin) {
    // An opener of another origin has no token to give.
  }
  window.opener = null; // the flame graph shown next gets no handle on the dashboard

  async function load(attempt) {
    const response = await fetch('/admin/jfr/flame?' + new URLSearchParams({ name, type }).toString(), {
      cache: 'no-store',
      headers: token ? { Authorization: 'Bearer ' + token } : {},
      signal: AbortSignal.timeout(CONVERSION_TIMEOUT_MS),
    });
    if (response.status === 409 && attempt < MAX_RETRIES) {
      status.textContent = 'the recording is being written; asking again…';
      setTimeout(() => load(attempt + 1).catch(fail), RETRY_MS);
      return;
    }
    if (!response.ok) {
      const why = response.status === 401 ? 'open it from the dashboard, after giving the admin token there'
        : (await response.text()).trim();
      status.textContent = 'no flame graph (' + response.status + '): ' + why;
      status.classList.add('error');
      return;
    }
    const html = await response.text();
    location.replace(URL.createObjectURL(new Blob([html], { type: 'text/html' })));
  }

  function fail(error) {
    status.textContent = 'no flame graph: ' + error.message;
    status.classList.add('error');
  }

  document.title = type + ' flame graph of ' + name;
  load(0).catch(fail);
})();
