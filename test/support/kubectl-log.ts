// Reads the HTTP exchanges out of kubectl's -v=8 log, so tests can assert what kubectl asked for
// (Accept) and what it was answered (status, Content-Type). kubectl 1.27 logs one header per line
// (`GET https://...`, `    Accept: ...`, `Response Status: 200 OK`); kubectl 1.33 logs structured
// records (`"Request" verb="GET" url="..." headers=<` then tab-indented headers, `"Response"
// status="200 OK" headers=<`). Both log one request and then its response, in order.

export interface KubectlExchange {
  verb: string;
  url: string;
  accept?: string;
  status?: string;
  contentType?: string;
}

const OLD_REQUEST = /round_trippers\.go:\d+\] (GET|POST|PUT|PATCH|DELETE) (https?:\/\/\S+)/;
const NEW_REQUEST = /"Request" verb="([A-Z]+)" url="([^"]+)"/;
const OLD_RESPONSE = /Response Status: (\d{3} [^\n]*?) in \d+ milliseconds/;
const NEW_RESPONSE = /"Response" status="([^"]+)"/;
const HEADER = /^(?:I\d{4} [\d:.]+\s+\d+ round_trippers\.go:\d+\]\s+|\t)([A-Za-z-]+): (.*)$/;

/** Every request kubectl logged, with the Accept it sent and the status and Content-Type it got. */
export function kubectlExchanges(log: string): KubectlExchange[] {
  const exchanges: KubectlExchange[] = [];
  let current: KubectlExchange | undefined;
  let inResponse = false;
  for (const line of log.split('\n')) {
    const request = OLD_REQUEST.exec(line) ?? NEW_REQUEST.exec(line);
    if (request) {
      current = { verb: request[1], url: request[2] };
      exchanges.push(current);
      inResponse = false;
      continue;
    }
    const response = OLD_RESPONSE.exec(line) ?? NEW_RESPONSE.exec(line);
    if (response && current) {
      current.status = response[1];
      inResponse = true;
      continue;
    }
    const header = HEADER.exec(line);
    if (!header || !current) continue;
    const name = header[1].toLowerCase();
    if (!inResponse && name === 'accept') current.accept = header[2].trim();
    if (inResponse && name === 'content-type') current.contentType = header[2].trim();
  }
  return exchanges;
}

/** The exchanges whose URL path ends in `pathSuffix` and whose query has `watch=true` or not. */
export function exchangesOf(log: string, pathSuffix: string, watch: boolean): KubectlExchange[] {
  return kubectlExchanges(log).filter((e) => {
    const url = new URL(e.url);
    return url.pathname.endsWith(pathSuffix) && (url.searchParams.get('watch') === 'true') === watch;
  });
}
