// The seeded generator of the pages' data (mulberry32), kept in lab/ where the lab's data uses it too.
export { mulberry32 } from '../../lab/random.js';
