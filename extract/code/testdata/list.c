#include <stdlib.h>
#include "list.h"

static int counter = 0;

/*
 * Appends a value to the list.
 */
int list_append(list *l, int value)
{
    struct node *n = malloc(sizeof *n);
    if (n == NULL) {
        return -1;
    }
    n->value = value;
    n->next = l->head;
    l->head = n;
    l->len++;
    return 0;
}

// Returns the length.
size_t list_len(const list *l) { return l->len; }

static void *
list_alloc(size_t n)
{
    return malloc(n);
}
