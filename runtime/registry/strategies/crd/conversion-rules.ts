// validateCustomResourceConversion over the internal form, where v1's conversion.webhook is
// flattened: its clientConfig is `spec.conversion.webhookClientConfig` and its review versions
// `spec.conversion.conversionReviewVersions`, the paths kube reports them at.

import type { StatusCause } from '../../../errors/status-error.js';
import { isDNS1035Label } from '../../../machinery/formats.js';
import { asList, asString, isPlainObject } from '../../../machinery/object.js';
import type { JsonObject } from '../../../machinery/json-values.js';
import { forbidden, invalid, notSupported, required } from '../../../validation/field-errors.js';
import { goStringSlice } from './go-syntax.js';
import { webhookServiceCauses, webhookURLCauses } from './webhook-config.js';

/** The ConversionReview versions this server speaks (and its predecessor did). */
const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

export interface ConversionOptions {
  requireRecognizedConversionReviewVersion: boolean;
  /** webhook.ValidateCABundle, or nothing where an invalid bundle is allowed (create, not yet Established). */
  validateCABundle: (caBundle: string, at: string) => StatusCause[];
}

/** hasValidConversionReviewVersionOrEmpty. */
export function hasAcceptedReviewVersionOrNone(versions: unknown): boolean {
  const list = asList(versions);
  return list.length === 0 || list.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(asString(v)));
}

function reviewVersionsCauses(versions: unknown, requireRecognized: boolean, at: string): StatusCause[] {
  const list = asList(versions).map(asString);
  if (list.length === 0) return [required(at)];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  let accepted = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      causes.push(invalid(`${at}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const err of isDNS1035Label(v)) causes.push(invalid(`${at}[${i}]`, v, err));
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${goStringSlice(versions)}: must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`, field: at });
  }
  return causes;
}

export function conversionCauses(conversion: JsonObject | undefined, opts: ConversionOptions): StatusCause[] {
  if (!conversion) return [];
  const at = 'spec.conversion';
  const causes: StatusCause[] = [];
  const strategy = asString(conversion.strategy);
  if (!strategy) causes.push(required(`${at}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') causes.push(notSupported(`${at}.strategy`, strategy, ['None', 'Webhook']));
  const webhook = isPlainObject(conversion.webhook) ? conversion.webhook : undefined;
  const clientConfig = webhook && isPlainObject(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const reviewVersions = webhook?.conversionReviewVersions;
  const configAt = `${at}.webhookClientConfig`;
  if (strategy === 'Webhook') {
    if (!clientConfig) causes.push(required(configAt, 'required when strategy is set to Webhook'));
    else {
      const url = typeof clientConfig.url === 'string' ? clientConfig.url : undefined;
      const service = isPlainObject(clientConfig.service) ? clientConfig.service : undefined;
      if ((url === undefined) === (service === undefined)) causes.push(required(configAt, 'exactly one of url or service is required'));
      else if (url !== undefined) causes.push(...webhookURLCauses(url, `${configAt}.url`));
      else if (service) {
        const port = typeof service.port === 'number' ? service.port : 0;
        const path = typeof service.path === 'string' ? service.path : undefined;
        causes.push(...webhookServiceCauses({ name: asString(service.name), namespace: asString(service.namespace), port, ...(path !== undefined ? { path } : {}) }, `${configAt}.service`));
      }
      const caBundle = asString(clientConfig.caBundle);
      if (caBundle) causes.push(...opts.validateCABundle(caBundle, `${configAt}.caBundle`));
    }
    causes.push(...reviewVersionsCauses(reviewVersions, opts.requireRecognizedConversionReviewVersion, `${at}.conversionReviewVersions`));
  } else {
    if (clientConfig) causes.push(forbidden(configAt, 'should not be set when strategy is not set to Webhook'));
    if (asList(reviewVersions).length > 0) causes.push(forbidden(`${at}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return causes;
}
