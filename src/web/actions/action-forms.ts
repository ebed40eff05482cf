import Mustache from 'mustache';
import type { HelmRelease } from '../../api/helmrelease.js';
import { RELEASE_ACTION_VERBS, RELEASE_VERBS, type VerbRow } from '../../api/release-verbs.js';
import { authorize } from '../../session/authz/authorize.js';
import type { Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import { releaseAuthzTarget } from '../../session/authz/targets.js';

/**
 * The release page's "Act" section: one small form per verb on a release that the person's Teams
 * grant here, read off the verb table (its arguments become inputs), each a GET to the plan page —
 * nothing changes until the plan is confirmed. A verb added to the table shows here by itself.
 */

interface VerbForm {
  verb: string;
  usage: string;
  version: boolean;
  revision: boolean;
  breakGlass: boolean;
  reason: boolean;
}

export function actionVerbsFor(subject: Subject, teams: readonly TeamPolicy[], release: HelmRelease, cluster?: string): VerbForm[] {
  const target = releaseAuthzTarget(release, cluster);
  return RELEASE_ACTION_VERBS.filter((verb) => authorize(subject, verb, target, teams).allowed).map((verb) => {
    const row = RELEASE_VERBS[verb] as VerbRow;
    const kinds = row.args.map((a) => a.kind);
    return {
      verb,
      usage: row.usage,
      version: kinds.includes('version'),
      revision: kinds.includes('revision'),
      breakGlass: (row.flags as readonly string[]).includes('--break-glass'),
      reason: row.reason !== 'none',
    };
  });
}

const FORMS = `<section class="actions"><h2>Act</h2>
{{#forms}}<form class="act" method="get" action="{{planUrl}}"><input type="hidden" name="verb" value="{{verb}}">
<button type="submit">{{verb}}</button>
{{#version}}<input name="version" placeholder="version" required size="8">{{/version}}
{{#revision}}<input name="revision" placeholder="revision (previous)" inputmode="numeric" size="8">{{/revision}}
{{#reason}}<input name="reason" placeholder="reason" size="16">{{/reason}}
{{#breakGlass}}<label><input type="checkbox" name="breakGlass" value="on"> break glass</label>{{/breakGlass}}
<small>{{usage}}</small></form>{{/forms}}
{{^forms}}<p>Your Teams grant no action on this release.</p>{{/forms}}
</section>`;

export function renderActionForms(planUrl: string, forms: readonly VerbForm[]): string {
  return Mustache.render(FORMS, { forms: forms.map((f) => ({ ...f, planUrl })) });
}
