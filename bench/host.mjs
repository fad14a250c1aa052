// What of the host changes the figures beyond its cores and load: whether fresh memory is backed by
// huge pages. On Linux, V8's ArrayBuffers come from glibc's malloc; with transparent huge pages in
// "madvise" mode (Debian's default) they are 4 KB pages, each faulted in on its first touch (here
// ~300 ms for a 125 MB output) unless GLIBC_TUNABLES=glibc.malloc.hugetlb=1 asks for 2 MB pages
// (15-26 ms while the kernel has them free). docs/api.md#fresh-outputs-and-huge-pages
import { readFileSync } from 'node:fs';

/** One line for a bench's header, e.g. "huge pages: THP madvise, glibc.malloc.hugetlb=1". */
export function hugePagesLine() {
  let thp = 'unknown';
  try {
    thp = /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1] ?? thp;
  } catch {
    return 'huge pages: not Linux';
  }
  const tunable = /glibc\.malloc\.hugetlb=\d/.exec(process.env.GLIBC_TUNABLES ?? '')?.[0];
  const on = thp === 'always' || (thp === 'madvise' && tunable === 'glibc.malloc.hugetlb=1');
  return `huge pages: ${on ? 'on' : 'off'} (THP ${thp}${tunable ? `, ${tunable}` : ''})`;
}
