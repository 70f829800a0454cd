import { isLabApiError, newIdempotencyKey, retryAfterSeconds, withIdempotencyKey, type LabApiClient, type RouterInputs, type RouterOutputs } from '@lab-api/client';
import { GAME_IDS, GAMES, isGameId, type GameId } from './game-tabs.ts';

type NewScore = RouterInputs['scores']['submit'];
type Score = RouterOutputs['scores']['submit'];

interface FormElements {
  form: HTMLFormElement;
  game: HTMLSelectElement;
  initials: HTMLInputElement;
  value: HTMLInputElement;
  submit: HTMLButtonElement;
  message: HTMLElement;
}

/** Fields the service names in an input error's issues, and where their messages go. */
const FIELDS = ['initials', 'value', 'game'] as const;

/**
 * The score form. The service is the one judge of a score: its messages are
 * shown next to the fields they name. A submission that got no answer (the
 * network failed) keeps its Idempotency-Key, so that sending it again cannot
 * store the score twice; any answer, or a changed score, starts afresh.
 */
export function wireScoreForm(elements: FormElements, client: LabApiClient, onSubmitted: (score: Score) => void): { showGame(game: GameId): void } {
  for (const game of GAME_IDS) elements.game.append(new Option(GAMES[game].name, game));
  let unanswered: { key: string; body: string } | undefined;

  elements.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });

  async function submit(): Promise<void> {
    const game = elements.game.value;
    const score: NewScore = {
      game: isGameId(game) ? game : 'demo',
      initials: elements.initials.value.trim().toUpperCase(),
      // An empty field is sent as missing, for the service to say so.
      value: elements.value.value === '' ? (undefined as unknown as number) : Number(elements.value.value),
    };
    const body = JSON.stringify(score);
    const key = unanswered?.body === body ? unanswered.key : newIdempotencyKey();
    unanswered = { key, body };
    clearErrors();
    elements.submit.disabled = true;
    say('Submitting…');
    try {
      const stored = await client.scores.submit.mutate(score, withIdempotencyKey(key));
      unanswered = undefined;
      say(`Stored: ${stored.initials} is number ${stored.rank} on ${GAMES[stored.game].name}.`, 'success');
      onSubmitted(stored);
    } catch (error) {
      explain(error);
    } finally {
      elements.submit.disabled = false;
    }
  }

  function explain(error: unknown): void {
    if (!isLabApiError(error) || !error.data) {
      say('The service could not be reached. Submit again to retry: the same attempt is never stored twice.', 'error');
      return;
    }
    const { code, issues } = error.data;
    if (code === 'CONFLICT') {
      say('This score is still being stored. Submit again in a moment.', 'error');
      return;
    }
    unanswered = undefined;
    if (code === 'TOO_MANY_REQUESTS') {
      const seconds = retryAfterSeconds(error);
      say(`Too many scores from you just now. Try again in ${seconds ?? 'a few'} second${seconds === 1 ? '' : 's'}.`, 'error');
      return;
    }
    if (code === 'BAD_REQUEST' && issues && issues.length > 0) {
      for (const issue of issues) showFieldError(issue.path, issue.message);
      say('Please correct the highlighted fields.', 'error');
      return;
    }
    say(error.message, 'error');
  }

  function showFieldError(path: string, message: string): void {
    const field = FIELDS.find((name) => name === path);
    if (!field) return say(`${path}: ${message}`, 'error');
    const input = elements[field];
    input.setAttribute('aria-invalid', 'true');
    const slot = document.getElementById(`score-${field}-error`);
    if (slot) slot.textContent = message;
  }

  function clearErrors(): void {
    for (const field of FIELDS) {
      elements[field].removeAttribute('aria-invalid');
      const slot = document.getElementById(`score-${field}-error`);
      if (slot) slot.textContent = '';
    }
  }

  function say(text: string, tone: 'success' | 'error' | 'info' = 'info'): void {
    elements.message.textContent = text;
    elements.message.dataset['tone'] = tone;
  }

  return {
    showGame(game) {
      elements.game.value = game;
    },
  };
}
