import sys
from agentdojo.task_suite.load_suites import get_suites
from bench.agentdojo.run import _results
from bench.agentdojo.model import Script, PLAN_HELPERS
S=get_suites('v1.2.2')
sn=sys.argv[1]
for t in sys.argv[2:]:
    s=S[sn]; u=s.get_user_task_by_id(t)
    env=u.init_environment(s.load_and_inject_default_environment({}))
    calls=u.ground_truth(env.model_copy(deep=True))
    texts,vals=_results(s,calls,env)
    sc=Script(u.PROMPT,calls,u.GROUND_TRUTH_OUTPUT,results=texts,values=vals)
    print("##",t, u.PROMPT[:200]); print(sc.plan_source(sn)[len(PLAN_HELPERS):])
