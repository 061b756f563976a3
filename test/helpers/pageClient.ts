/** Drives the pages over `inject` like a browser without JavaScript: a cookie jar and form posts. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

export type FormData = Record<string, string | string[]>;

export class PageClient {
  readonly cookies = new Map<string, string>();
  readonly #app: FastifyInstance;
  #lastCsrf: string | undefined;

  constructor(app: FastifyInstance) {
    this.#app = app;
  }

  #remember(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies) {
      // Cleared cookies come back empty (and already expired).
      if (cookie.value === '' || cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    const csrf = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (csrf !== undefined) this.#lastCsrf = csrf;
    return response;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.#remember(
      await this.#app.inject({
        method: 'GET',
        url,
        headers: { cookie: this.cookieHeader, accept: 'text/html', ...headers },
      }),
    );
  }

  /** Posts a form; the CSRF token of the last page seen is added unless `_csrf` is given. */
  async post(url: string, form: FormData): Promise<LightMyRequestResponse> {
    const params = new URLSearchParams();
    const fields: FormData = { _csrf: this.#lastCsrf ?? '', ...form };
    for (const [name, value] of Object.entries(fields))
      for (const v of [value].flat()) params.append(name, v);
    return this.#remember(
      await this.#app.inject({
        method: 'POST',
        url,
        headers: {
          cookie: this.cookieHeader,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'text/html',
        },
        payload: params.toString(),
      }),
    );
  }

  /** Signs in through the real form. */
  async signIn(email: string, password: string): Promise<LightMyRequestResponse> {
    await this.get('/login');
    return this.post('/login', { email, password });
  }
}
