"""The circles of a directed graph: its strongly connected components of
more than one node, or of one node with an edge to itself (Tarjan's
algorithm, iterative, so a deep graph cannot hit Python's recursion
limit). What tools/lint/check_includes.py (C++ includes) and
e2e/properties/imports_test.py (Python imports) both look for.
Standard library only."""


def circles(graph):
    """Each circle of `graph` (node -> the nodes it points to) as a sorted
    list of its nodes; the list sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def enter(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        return (node, iter(sorted(graph.get(node, ()))))

    for start in sorted(graph):
        if start in index:
            continue
        work = [enter(start)]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    work.append(enter(child))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph.get(node, ()):
                        out.append(sorted(component))
    return sorted(out)
