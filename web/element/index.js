// The <attn-scope> element: importing this module defines it (import 'attnscope/element'; on a server,
// where there are no custom elements, it defines nothing and throws nothing), and the
// classic-script build (dist/attnscope-element.js) is this module wrapped in a function.
import { AttnScopeElement, define, VIEWS, CONTROLS, DEFAULTS } from './attn-scope.js';

define();

export { AttnScopeElement, VIEWS, CONTROLS, DEFAULTS };
export default AttnScopeElement;
