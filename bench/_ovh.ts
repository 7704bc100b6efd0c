import { measureOverhead } from './overhead';
import { renderTextTable } from './report/table';

measureOverhead().then((r) => console.log(renderTextTable(r.table)));
