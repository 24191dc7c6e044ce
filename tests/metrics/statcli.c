/* tests/metrics/statcli.c — reads numbers (one per line) and prints
 * gp_stats_compute's avg p1 p5 p10 p25 p50 p75 p90 p95 p99 min max std as
 * Python repr, for tests/e2e/metrics_numpy_stats.sh to compare with NumPy. */
#include "export/pyjson.h"
#include "metrics/metrics.h"
#include <stdio.h>
#include <stdlib.h>
int main(void){ size_t cap=1<<20,n=0; double *x=malloc(cap*sizeof *x); double v;
 while(scanf("%lf",&v)==1){ if(n==cap){cap*=2;x=realloc(x,cap*sizeof *x);} x[n++]=v; }
 struct gp_stats s; gp_stats_compute(x,n,&s); char b[64];
 gp_py_float_repr(s.avg,b,64); printf("%s",b);
 for(int i=0;i<GP_NPCT;i++){gp_py_float_repr(s.p[i],b,64); printf(" %s",b);}
 gp_py_float_repr(s.min,b,64); printf(" %s",b); gp_py_float_repr(s.max,b,64); printf(" %s",b);
 gp_py_float_repr(s.std,b,64); printf(" %s\n",b); return 0;}
