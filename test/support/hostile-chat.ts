// Marketplace text that tries to become markup in a team's chat (issue 24): each entry is a
// buyer's or product's name, and the finders say what Slack or Teams would make of a text they
// receive, as their documentation and the Adaptive Cards renderers describe it (the sources are
// listed in main/core/automation/chat.ts). A finder names each piece of markup it sees, so a
// test failure says which one got through.

export const HOSTILE_CHAT_NAMES: Readonly<Record<string, string>> = {
  'a Markdown link': '[Click to confirm payment](https://evil.example/pay)',
  autolinks: 'http://x.example www.evil.example <https://evil.example> pay@evil.example',
  "Slack's control sequences":
    '<!channel> <!here> <@U0123ABC> <#C0123ABC> <!subteam^S0123> <!date^1392734382^{date}|x> <https://evil.example|Your bank>',
  'a Teams mention': '<at>Finance Team</at> please approve',
  HTML: '<b>URGENT</b><img src=x onerror=alert(1)><a href="https://evil.example">here</a>',
  'HTML entities': '&lt;b&gt;bold&#60;/b&#62; &#8238;desrever &amp; &#x5b;x&#x5d;',
  emphasis: '**Paid** __in full__ _refund_ ~~void~~ *now*',
  backticks: '`code` ```block```',
  'emoji shortcodes': ':rotating_light: Paid :white_check_mark:',
  'bare mentions': '@channel @here @everyone',
  'zero-width and right-to-left overrides': 'Ac\u200bme \u202e00.1$\u202c ev\u200bil\u200d.example',
  'newlines forging lines': 'Acme\n- list item\n# Heading\n> quote\n1. one',
  'a leading list marker': '- Acme',
  'a leading numbered-list marker': '1. Acme',
  'a leading heading marker': '# Acme',
  'a date function': '{{DATE(2017-02-14T06:00:00Z, SHORT)}} \u0024{buyer}',
  'backslash escapes': '\\*not bold\\* \\[x\\](y)',
  'very long': `Acme ${'A'.repeat(100_000)}`,
};

/** Text a chat (or the device it shows on) would offer as a link. */
const LINK_LIKE: [RegExp, string][] = [
  [/\b[a-z][\w+.-]*:\/\//i, 'a URL'],
  [/\bwww\./i, 'a www. address'],
  [/[\w-]\.[a-z]{2,}\b/i, 'a domain'],
  [/\w@[\w-]+\.[a-z]/i, 'an e-mail address'],
];

function found(text: string, patterns: [RegExp, string][]): string[] {
  return patterns
    .filter(([pattern]) => pattern.test(text))
    .map(([, what]) => `${what} in ${JSON.stringify(text.slice(0, 120))}`);
}

/** What Slack would parse in a plain_text object: only links it may detect, and `<…>` sequences. */
export function slackPlainMarkup(text: string): string[] {
  return found(text, [...LINK_LIKE, [/[<>]/, 'an angle bracket']]);
}

/**
 * What Slack would parse in a message's `text` (mrkdwn unless `mrkdwn: false`): its control
 * sequences (`&`, `<`, `>` not escaped), `@` mentions, `:shortcodes:` and links.
 */
export function slackTextMarkup(text: string): string[] {
  return found(text, [
    ...LINK_LIKE,
    [/[<>]/, 'an angle bracket'],
    [/&(?!amp;|lt;|gt;)/, 'an unescaped &'],
    [/@\w/, 'a mention'],
    [/:[\w+'-]+:/, 'an emoji shortcode'],
  ]);
}

/**
 * What a Teams client would parse in a TextBlock's or a fact's text: CommonMark on the desktop,
 * the Adaptive Cards parser on mobile (HTML passed through), and the date functions everywhere.
 */
export function teamsMarkup(text: string): string[] {
  return found(text, [
    ...LINK_LIKE,
    [/[[\]]/, 'a link bracket'],
    [/[<>]/, 'an angle bracket (HTML, <at>)'],
    [/&/, 'an ampersand (entity)'],
    [/[*_]/, 'an emphasis delimiter'],
    [/[`~]/, 'code or strike-through'],
    [/\{\{/, 'a date function'],
    [/\\/, 'a backslash escape'],
    [/^\s*(?:[-+*#>]|\d+[.)])(?:\s|$)/, 'a list, heading or quote marker'],
    [/[\n\r]/, 'a line break'],
  ]);
}
