import { call, type Role } from '../api/client';
import { holds, P } from '../logic/access';
import { everyPage, WHOLE_LIST_PAGE_SIZE } from '../logic/every-page';
import { useConsole } from './components';
import { type Loaded, useLoad } from './use-load';

/** Every role, for a picker: all the list's pages read when it mounts; none for a viewer without roles:read. */
export function useRoles(): Loaded<Role[]> & { reload(): void } {
  const { api, permissions } = useConsole();
  const rolesPage = async (page: number) => {
    const { roles, pagination } = await call(api.GET('/v1/roles', { params: { query: { page, page_size: WHOLE_LIST_PAGE_SIZE } } }));
    return { items: roles, pageCount: pagination.page_count };
  };
  return useLoad(async () => (holds(permissions, P.rolesRead) ? everyPage(rolesPage, (role) => role._id) : []), 'roles');
}
