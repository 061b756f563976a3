// The consent page's preview, redrawn as calendars and levels change: the form is sent to the
// Preview address (what the Preview button does without script) and its answer's panel shown.
const form = document.querySelector('form[data-preview]');
if (form !== null) {
  const button = document.querySelector(`button[form="${form.id}"][formaction]`);
  if (button !== null) button.hidden = true;
  let latest = 0;
  form.addEventListener('change', async () => {
    const asked = ++latest;
    const response = await fetch(form.dataset.preview, {
      method: 'POST',
      body: new URLSearchParams(new FormData(form)),
    }).catch(() => undefined);
    if (asked !== latest) return;
    const fresh =
      response?.ok === true
        ? new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('preview')
        : null;
    if (fresh === null) {
      if (button !== null) button.hidden = false;
      return;
    }
    document.getElementById('preview').innerHTML = fresh.innerHTML;
  });
}
